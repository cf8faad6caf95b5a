// How tests and benchmarks start `cloudctl` as a process: Node with the flags and environment of the
// binary's shebang and the chart's command (CLOUDCTL_NODE_FLAGS, CLOUDCTL_ENV;
// test/packaging/dockerfile.test.ts and the chart's test hold them together), so a process test or a
// benchmark runs cloudctl as users do.
import { join } from 'node:path';
import { CLOUDCTL_ENV, CLOUDCTL_NODE_FLAGS } from '../../src/cloudctl/cloudctl-runtime.ts';

export const CLOUDCTL_BIN = join(import.meta.dirname, '../../bin/cloudctl.js');

/** The command, arguments and environment that run `cloudctl ARGS`. */
export function cloudctlCommand(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  return {
    command: process.execPath,
    args: [...CLOUDCTL_NODE_FLAGS, CLOUDCTL_BIN, ...args],
    env: { ...process.env, ...CLOUDCTL_ENV, ...env },
  };
}
