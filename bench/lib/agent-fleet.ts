// Several agent processes sharing a benchmark's accounts, as a large install spreads its accounts over
// agents (one per cluster or group of clusters): each agent its own id at cloudctl, its own config and
// log, its share of the accounts. They start one after another, each once the one before has checked
// its accounts: on two cores, every account's reachability check at once times out, and an account
// whose check times out stays FAILED (docs/benchmarks.md, "Many accounts in one agent").
import { existsSync, readFileSync } from 'node:fs';
import { type AgentProcess, startAgentProcess, waitFor } from './bench-system.ts';
import type { CloudctlProcess } from './cloudctl-process.ts';

export interface FleetMember {
  readonly agent: AgentProcess;
  readonly accounts: readonly string[];
}

export interface AgentFleet {
  readonly members: readonly FleetMember[];
  /** Log lines of accounts failed and not active since, and of watches that failed to start. */
  darkAccounts(): string[];
  stop(): Promise<void>;
}

/** `accounts` dealt round-robin over `n` agents: shares differ by one account at most. */
export function spreadAccounts(accounts: readonly string[], n: number): string[][] {
  return Array.from({ length: n }, (_, share) => accounts.filter((_, i) => i % n === share));
}

export interface FleetOptions {
  dir: string;
  cloudctl: CloudctlProcess;
  kubeconfigPath: string;
  kinds: readonly string[];
  /** One share of accounts per agent; cloudctl must have registered as many agents. */
  shares: readonly (readonly string[])[];
  orchestratorExtra?: readonly string[];
  /** An account's `namespaces` (default: none, every namespace). */
  namespacesOf?: (account: string) => readonly string[];
  /** How long one agent may take to check its accounts. */
  startLimitMs: number;
}

const logOf = (agent: AgentProcess) => (existsSync(agent.logFile) ? readFileSync(agent.logFile, 'utf8') : '');

export async function startAgentFleet(options: FleetOptions): Promise<AgentFleet> {
  const members: FleetMember[] = [];
  const stop = async () => {
    await Promise.all(members.map((m) => m.agent.stop()));
  };
  try {
    for (const [i, accounts] of options.shares.entries()) {
      const credential = options.cloudctl.agents[i];
      if (credential === undefined) throw new Error(`cloudctl registered no agent ${i}`);
      const agent = await startAgentProcess({
        dir: options.dir,
        controlPlane: credential,
        agentId: credential.agentId,
        name: i === 0 ? 'agent' : `agent-${i}`,
        kubeconfigPath: options.kubeconfigPath,
        kinds: options.kinds,
        accounts,
        ...(options.orchestratorExtra === undefined ? {} : { orchestratorExtra: options.orchestratorExtra }),
        ...(options.namespacesOf === undefined ? {} : { namespacesOf: options.namespacesOf }),
      });
      members.push({ agent, accounts });
      await waitFor(
        `agent ${credential.agentId} to check its accounts (log: ${agent.logFile})`,
        async () => (logOf(agent).includes('"msg":"orch-agent started"') ? true : undefined),
        options.startLimitMs,
        100,
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    members,
    darkAccounts: () =>
      members.flatMap(({ agent }) => {
        // An account's last word: a failed one is checked again by the agent (5 s doubling to 5 min)
        // and is dark only until a later 'account active'.
        const last = new Map<string, string>();
        const lines = logOf(agent).split('\n');
        for (const line of lines) {
          const account = /"account":"([^"]+)"/.exec(line)?.[1];
          if (account !== undefined && /"msg":"account (failed|active)"/.test(line)) last.set(account, line);
        }
        return [
          ...[...last.values()].filter((line) => line.includes('"msg":"account failed"')),
          ...lines.filter((line) => line.includes('watches failed')),
        ];
      }),
    stop,
  };
}
