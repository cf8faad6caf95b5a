// How tests, the demo and bench:many-accounts start `cloudctl` as a process: Node with the flags of
// the chart's command and the binary's shebang, and the image's environment (CLOUDCTL_NODE_FLAGS,
// CLOUDCTL_ENV; test/packaging/dockerfile.test.ts and the chart's test hold them together), so a
// process test or a benchmark runs cloudctl as users do.
import { join } from 'node:path';
import { CLOUDCTL_ENV, CLOUDCTL_NODE_FLAGS } from '../../src/cloudctl/cloudctl-runtime.ts';
import { type NodeCommand, nodeCommand } from './node-command.ts';

export const CLOUDCTL_BIN = join(import.meta.dirname, '../../bin/cloudctl.js');

/** The command, arguments and environment that run `cloudctl ARGS`. */
export function cloudctlCommand(args: readonly string[], env: NodeJS.ProcessEnv = {}): NodeCommand {
  return nodeCommand(CLOUDCTL_BIN, { flags: CLOUDCTL_NODE_FLAGS, settings: CLOUDCTL_ENV }, args, env);
}
