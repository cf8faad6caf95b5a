// Helpers for config tests: write a YAML file to a temp dir, run the CLI in-process, capture output.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll } from 'vitest';
import { runCli } from '../../../src/agent/cli/run-cli.ts';
import type { CliIo } from '../../../src/lib/cli-io.ts';

const created: string[] = [];
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temporary directory removed after the test file. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'orch-agent-test-'));
  created.push(dir);
  return dir;
}

export function writeConfig(yaml: string, name = 'agent.yaml'): string {
  const dir = tempDir();
  const file = join(dir, name);
  writeFileSync(file, yaml);
  return file;
}

export async function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    env,
    stdout: pino.destination({ dest: 1, sync: true }),
    stopSignal: () => Promise.resolve('SIGTERM'),
  };
  const code = await runCli(args, io);
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}
