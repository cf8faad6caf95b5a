import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');

async function ourProcesses(): Promise<string[]> {
  const { stdout } = await run('ps', ['-eo', 'args']);
  return stdout.split('\n').filter((l) => /orch-agent-(cluster|demo)-|bin\/orch-agent\.js run/.test(l));
}

describe('npm run demo', () => {
  it('brings up cluster, cloudctl and agent, deploys the sample app through an operation, and leaves nothing behind', {
    timeout: 180_000,
  }, async () => {
    const before = await ourProcesses();
    const { stdout } = await run(process.execPath, [join(ROOT, 'scripts/demo.ts'), '--headless'], {
      cwd: ROOT,
      maxBuffer: 8 << 20,
    });
    expect(stdout).toContain('[demo]     deploy succeeded');
    expect(stdout).toMatch(/the control plane holds, for demo-shop: .*3 Pod.*1 Deployment/);
    expect(stdout).toContain('headless run: the sample application reached the control plane');
    expect(await ourProcesses()).toEqual(before);
  });
});
