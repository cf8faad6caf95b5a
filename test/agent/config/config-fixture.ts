// Helpers for config tests: write a YAML file to a temp dir, run the CLI in-process, capture output.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { runCli } from '../../../src/agent/cli/run-cli.ts';
import type { CliIo } from '../../../src/lib/cli-io.ts';
import { tempDir } from '../../support/temp-dir.ts';

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
