// How tests start `orch-agent` as a process: Node with the flags and environment of the binary's
// shebang and the image's ENTRYPOINT (AGENT_NODE_FLAGS, AGENT_ENV; test/packaging/dockerfile.test.ts
// holds the shebang to them), so a process test runs the agent as users do, not as a bare script.
import { join } from 'node:path';
import { AGENT_ENV, AGENT_NODE_FLAGS } from '../../src/agent/agent-runtime.ts';
import { type NodeCommand, nodeCommand } from './node-command.ts';

export const AGENT_BIN = join(import.meta.dirname, '../../bin/orch-agent.js');

/** The command, arguments and environment that run `orch-agent ARGS`. */
export function agentCommand(args: readonly string[], env: NodeJS.ProcessEnv = {}): NodeCommand {
  return nodeCommand(AGENT_BIN, { flags: AGENT_NODE_FLAGS, settings: AGENT_ENV }, args, env);
}
