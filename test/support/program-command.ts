// How tests, the demo and benchmarks start one of our programs as a process, as users run it: Node
// with the flags of the bin's shebang (the agent's image ENTRYPOINT, cloudctl's chart command) and
// the environment the image gives it. Each program's settings live beside it
// (src/agent/agent-runtime.ts, src/cloudctl/cloudctl-runtime.ts); test/packaging holds the shebangs,
// the image and the charts to them, so a process test runs a program as users do, not as a bare script.
import { join } from 'node:path';
import { AGENT_ENV, AGENT_NODE_FLAGS } from '../../src/agent/agent-runtime.ts';
import { CLOUDCTL_ENV, CLOUDCTL_NODE_FLAGS } from '../../src/cloudctl/cloudctl-runtime.ts';

export type Program = 'orch-agent' | 'cloudctl';

const PROGRAMS: Record<Program, { flags: readonly string[]; settings: Readonly<Record<string, string>> }> = {
  'orch-agent': { flags: AGENT_NODE_FLAGS, settings: AGENT_ENV },
  cloudctl: { flags: CLOUDCTL_NODE_FLAGS, settings: CLOUDCTL_ENV },
};

/** The command, arguments and environment that run `PROGRAM ARGS`; `env` over the program's own. */
export function programCommand(
  program: Program,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  const { flags, settings } = PROGRAMS[program];
  return {
    command: process.execPath,
    args: [...flags, join(import.meta.dirname, '../../bin', `${program}.js`), ...args],
    env: { ...process.env, ...settings, ...env },
  };
}
