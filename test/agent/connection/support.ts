// Shared pieces of the connection tests: an agent config of a given variant, a connection wired to
// capture logs, operations and state changes, and small waiting helpers. Everything talks to a real
// cloudctl over loopback sockets (test/cloudctl/harness.ts).
import { createServer } from 'node:net';
import pino from 'pino';
import { Registry } from 'prom-client';
import { AGENT_CONFIG_SCHEMAS, type AgentConfig } from '../../../src/agent/config/index.ts';
import {
  ControlPlaneConnection,
  type ControlPlaneConnectionOptions,
  type Registration,
} from '../../../src/agent/connection/index.ts';
import {
  type AgentMetrics,
  type ConnectionStateName,
  createAgentMetrics,
} from '../../../src/agent/observability/index.ts';
import type { Operation } from '../../../src/agent/operations/index.ts';
import type { LogLine } from '../../cloudctl/harness.ts';

export function agentConfig(variant: 'A' | 'B' | 'C', settings: Record<string, unknown>): AgentConfig {
  return AGENT_CONFIG_SCHEMAS[variant].parse({ variant, ...settings });
}

export function registrationFor(agentId: string, accounts: string[]): Registration {
  return {
    agentId,
    zoneId: 'zone-a',
    replicaCount: 2,
    accounts: accounts.map((name) => ({
      name,
      permissions: { read: ['dev'], write: ['ops'] },
      apiServerHost: 'https://127.0.0.1:6443',
      kubernetesVersion: 'v1.33.1',
      source: 'static-agent-config',
      caching: true,
    })),
    dynamicAccounts: {
      enabled: true,
      interceptorEnabled: false,
      scanBatchSize: 0,
      scanFrequencySeconds: 0,
      namePatterns: [],
      credentialScanNamePatterns: [],
    },
  };
}

export interface TestConnection {
  connection: ControlPlaneConnection;
  metrics: AgentMetrics;
  registry: Registry;
  logs: LogLine[];
  operations: Operation[];
  /** Every transition, with when it happened (performance.now()). */
  transitions: Array<{ state: ConnectionStateName; at: number }>;
  waitFor(state: ConnectionStateName, timeoutMs?: number, after?: number): Promise<number>;
}

export function connectionFor(
  config: AgentConfig,
  options: Partial<ControlPlaneConnectionOptions> = {},
): TestConnection {
  const logs: LogLine[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const registry = new Registry();
  const metrics = createAgentMetrics(registry, { activeWatches: () => 0, lastEvents: () => [] });
  const operations: Operation[] = [];
  const connection = new ControlPlaneConnection({
    config,
    version: '0.1.0-test',
    registration: () => registrationFor('agent-1', ['acct-a']),
    onOperation: (op) => void operations.push(op),
    logger,
    metrics,
    env: {},
    ...options,
  });
  const transitions: TestConnection['transitions'] = [];
  const waiters: Array<() => void> = [];
  connection.onStateChange((state) => {
    transitions.push({ state, at: performance.now() });
    for (const wake of waiters.splice(0)) wake();
  });
  /** Resolves with the time of the first transition into `state` after index `after`. */
  const waitFor = async (state: ConnectionStateName, timeoutMs = 5000, after = 0): Promise<number> => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const hit = transitions.slice(after).find((t) => t.state === state);
      if (hit !== undefined) return hit.at;
      const left = deadline - performance.now();
      if (left <= 0) {
        throw new Error(
          `no transition to ${state} within ${timeoutMs} ms; saw ${transitions.map((t) => t.state).join(' → ')}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
  return { connection, metrics, registry, logs, operations, transitions, waitFor };
}

/** Polls `condition` until it holds. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A loopback port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return 0;
  const { values } = await metric.get();
  const hit = values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val));
  return hit?.value ?? 0;
}
