// Every metric the agent exports, defined in one place under the `orch_agent_` prefix, on a registry
// passed in (so tests and several agents in one process do not share state), beside the default
// process and Node.js metrics.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { registerDefaultMetrics } from '../../lib/default-metrics.ts';

export const CONNECTION_STATES = ['idle', 'connecting', 'connected', 'backoff', 'stopped'] as const;
export type ConnectionStateName = (typeof CONNECTION_STATES)[number];

export interface MetricSources {
  /** Read at scrape time, so the gauge cannot drift from the watch registry. */
  activeWatches: () => number;
}

export function createAgentMetrics(registry: Registry, sources: MetricSources) {
  registerDefaultMetrics(registry);
  const registers = [registry];
  return {
    connectionState: new Gauge({
      name: 'orch_agent_connection_state',
      help: 'Control-plane connection state: 1 for the current state, 0 for the others.',
      labelNames: ['state'],
      registers,
    }),
    connects: new Counter({
      name: 'orch_agent_connects_total',
      help: 'Sessions established with the control plane.',
      registers,
    }),
    disconnects: new Counter({
      name: 'orch_agent_disconnects_total',
      help: 'Sessions with the control plane that ended, by reason.',
      labelNames: ['reason'],
      registers,
    }),
    eventsSent: new Counter({
      name: 'orch_agent_events_sent_total',
      help: 'Resource events sent to the control plane.',
      labelNames: ['account'],
      registers,
    }),
    eventBytesSent: new Counter({
      name: 'orch_agent_event_bytes_sent_total',
      help: 'Bytes of resource events sent to the control plane.',
      labelNames: ['account'],
      registers,
    }),
    activeWatches: new Gauge({
      name: 'orch_agent_active_watches',
      help: 'Watches currently open against Kubernetes API servers.',
      registers,
      collect() {
        this.set(sources.activeWatches());
      },
    }),
    kubernetesRequests: new Counter({
      name: 'orch_agent_kubernetes_requests_total',
      help: 'Requests to Kubernetes API servers, by verb and HTTP status code.',
      labelNames: ['verb', 'code'],
      registers,
    }),
    operations: new Counter({
      name: 'orch_agent_operations_total',
      help: 'Operations carried out, by type and result.',
      labelNames: ['type', 'result'],
      registers,
    }),
    resultsUndelivered: new Counter({
      name: 'orch_agent_results_undelivered_total',
      help: 'Operation results given up on: delivery retries exhausted, refused for good, or outbox full.',
      registers,
    }),
    operationDuration: new Histogram({
      name: 'orch_agent_operation_duration_seconds',
      help: 'Duration of operations, from receipt to result.',
      labelNames: ['type'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    }),
    listDuration: new Histogram({
      name: 'orch_agent_list_duration_seconds',
      help: 'Duration of full (paginated) lists of one kind in one namespace scope.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    schedulerQueueDepth: new Gauge({
      name: 'orch_agent_scheduler_queue_depth',
      help: 'Tasks waiting for a task-budget slot.',
      registers,
    }),
  };
}

export type AgentMetrics = ReturnType<typeof createAgentMetrics>;

export function setConnectionState(metrics: AgentMetrics, state: ConnectionStateName) {
  for (const s of CONNECTION_STATES) metrics.connectionState.set({ state: s }, s === state ? 1 : 0);
}
