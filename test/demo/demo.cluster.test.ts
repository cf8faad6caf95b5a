import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { LOG_TAIL_LINES, lastLines } from '../../scripts/demo-process.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');

/** Command lines of running processes that mention `dir`. */
async function processesUsing(dir: string): Promise<string[]> {
  const { stdout } = await run('ps', ['-eo', 'args']);
  return stdout.split('\n').filter((l) => l.includes(dir));
}

describe('npm run demo', () => {
  it('brings up cluster, cloudctl and agent, deploys the sample app through the HTTP API and a gated canary with cloudctl deploy -f, and leaves nothing behind', {
    timeout: 180_000,
  }, async () => {
    const { stdout } = await run(process.execPath, [join(ROOT, 'scripts/demo.ts'), '--headless'], {
      cwd: ROOT,
      maxBuffer: 8 << 20,
    });
    expect(stdout).toContain('[demo]     deploy succeeded');
    expect(stdout).toMatch(/deploy succeeded \(task [0-9a-f-]{36}\)/);
    expect(stdout).toMatch(/the control plane holds, for account demo: .*3 pod, .*1 deployment/);
    // cloudctl deploy -f: a first version in full, then a canary that waits for the webhook job's callback.
    expect(stdout).toMatch(
      /\| [\d:]{8} \[demo\] deploy the new version: succeeded: first version: potato-facts-[0-9a-f]{10} at 2/,
    );
    expect(stdout).toMatch(
      /\| [\d:]{8} \[demo\] setWeight 50%: succeeded: potato-facts-[0-9a-f]{10} at 1 of 2/,
    );
    expect(stdout).toMatch(
      /\[webhook job\] smoke tests of potato-facts-[0-9a-f]{10} passed; called back \(200\)/,
    );
    expect(stdout).toMatch(
      /\| [\d:]{8} \[demo\] new version at 100%: succeeded: potato-facts-[0-9a-f]{10} at 2 of 2/,
    );
    expect(stdout).toContain('deploy -f succeeded twice: potato-facts 1.1 passed its canary gate');
    // A plan first: the image path's change, the Deployment untouched; applied once, refused the second time.
    expect(stdout).toMatch(
      /plan [0-9a-f-]{36}: Deployment demo-shop\/web spec\.template\.spec\.containers\[0\]\.image: registry\.example\/web:1\.0 -> registry\.example\/web:1\.1/,
    );
    expect(stdout).toMatch(/nothing changed while planning: web's resourceVersion is still \d+/);
    expect(stdout).toMatch(/applied: task [0-9a-f-]{36} deployed exactly the plan/);
    expect(stdout).toMatch(/a second apply: 409 .*applied/);
    expect(stdout).toContain('headless run: the sample application reached the control plane');
    // This run's own cluster and demo folders: other tests may run clusters of their own meanwhile.
    const clusterDir = /KUBECONFIG=(\/\S+)\/kubeconfig/.exec(stdout)?.[1];
    const demoDir = /embedded database \((\/\S+)\/cloudctl-data\)/.exec(stdout)?.[1];
    expect(clusterDir).toMatch(/orch-agent-cluster-/);
    expect(demoDir).toMatch(/orch-agent-demo-/);
    expect(await processesUsing(clusterDir ?? '')).toEqual([]);
    expect(await processesUsing(demoDir ?? '')).toEqual([]);
  });

  it('when the agent dies at start, prints the last lines of its log, keeps its work directory and leaves no process behind', {
    timeout: 120_000,
  }, async () => {
    // A proxy the agent refuses (https://) makes it exit at start; cloudctl and the cluster ignore it.
    const failed = await run(process.execPath, [join(ROOT, 'scripts/demo.ts'), '--headless'], {
      cwd: ROOT,
      maxBuffer: 8 << 20,
      env: { ...process.env, grpc_proxy: 'https://proxy.invalid:3128' },
    }).then(
      () => undefined,
      (error: { code?: number; stdout?: string }) => error,
    );
    expect(failed?.code).toBe(1);
    const stdout = failed?.stdout ?? '';
    const demoDir = /embedded database \((\/\S+)\/cloudctl-data\)/.exec(stdout)?.[1] ?? '';
    expect(demoDir).toMatch(/orch-agent-demo-/);
    onTestFinished(() => rmSync(demoDir, { recursive: true, force: true }));
    const agentLog = join(demoDir, 'agent.log');
    const header = `[demo] orch-agent exited (code 1); the last `;
    const at = stdout.indexOf(header);
    expect(at, stdout).toBeGreaterThan(-1);
    const count = Number(/^(\d+) lines of its log \((\S+)\):$/m.exec(stdout.slice(at + header.length))?.[1]);
    expect(stdout.slice(at)).toContain(`lines of its log (${agentLog}):\n`);
    // The lines printed are the log's last lines, as the file holds them, ending with the cause.
    const printed = stdout
      .slice(at)
      .split('\n')
      .slice(1, 1 + count)
      .map((line) => line.replace(/^\[demo\] {5}\| /, ''));
    const kept = readFileSync(agentLog, 'utf8');
    expect(printed).toEqual(lastLines(kept, LOG_TAIL_LINES));
    expect(printed.join('\n')).toContain('grpc_proxy: only http:// proxies (HTTP CONNECT) are supported');
    expect(stdout).toContain(
      `[demo] kept this run's work directory (logs, configs, cloudctl's database): ${demoDir}`,
    );
    for (const file of ['agent.log', 'cloudctl.log', 'agent.yaml', 'cloudctl.yaml'])
      expect(existsSync(join(demoDir, file)), file).toBe(true);
    const clusterDir = /KUBECONFIG=(\/\S+)\/kubeconfig/.exec(stdout)?.[1];
    expect(clusterDir).toMatch(/orch-agent-cluster-/);
    expect(await processesUsing(clusterDir ?? '')).toEqual([]);
    expect(await processesUsing(demoDir)).toEqual([]);
  });
});
