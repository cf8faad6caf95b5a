// Every metric the agent exports, defined in one place under the `orch_agent_` prefix, on a registry
// passed in (so tests and several agents in one process do not share state), beside the default
// process and Node.js metrics.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { registerDefaultMetrics } from '../../lib/default-metrics.ts';
import type { LastEvent } from '../watch/index.ts';

export const CONNECTION_STATES = ['idle', 'connecting', 'connected', 'backoff', 'stopped'] as const;
export type ConnectionStateName = (typeof CONNECTION_STATES)[number];

export interface MetricSources {
  /** Read at scrape time, so the gauge cannot drift from the watch registry. */
  activeWatches: () => number;
  /** The last event of every watch scope that has had one, read at scrape time like the above. */
  lastEvents: () => LastEvent[];
}

/** The session with the control plane, and the events and watches it carries. */
function sessionMetrics(registers: Registry[], sources: MetricSources) {
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
  };
}

/** Kubernetes API requests, and the operations they serve. */
function requestMetrics(registers: Registry[]) {
  return {
    kubernetesRequests: new Counter({
      name: 'orch_agent_kubernetes_requests_total',
      help: 'Requests to Kubernetes API servers, by verb and HTTP status code.',
      labelNames: ['verb', 'code'],
      registers,
    }),
    kubernetesRequestRetries: new Counter({
      name: 'orch_agent_kubernetes_request_retries_total',
      help: 'Requests to Kubernetes API servers made again under orchestrator.retries, by verb.',
      labelNames: ['verb'],
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
  };
}

/** The list/watch loops, the uplink that batches their events, and the task budget. */
function watchLoopMetrics(registers: Registry[], sources: MetricSources) {
  return {
    listDuration: new Histogram({
      name: 'orch_agent_list_duration_seconds',
      help: 'Duration of full (paginated) lists of one kind in one namespace scope.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    watchLists: new Counter({
      name: 'orch_agent_watch_lists_total',
      help: 'Lists of one watch scope sent as a snapshot, by reason: start (first list), 410 (resourceVersion compacted away), error (a refusal or failure a retry from the last version cannot mend).',
      labelNames: ['account', 'reason'],
      registers,
    }),
    watchResumes: new Counter({
      name: 'orch_agent_watch_resumes_total',
      help: 'Watch scopes started from the resourceVersion the control plane remembered, without a list.',
      labelNames: ['account'],
      registers,
    }),
    watchRestarts: new Counter({
      name: 'orch_agent_watch_restarts_total',
      help: 'Watches opened again after the previous one ended, by why it ended: closed (the server ended it, e.g. its timeout), error, 410.',
      labelNames: ['account', 'reason'],
      registers,
    }),
    watchLastEvent: new Gauge({
      name: 'orch_agent_watch_last_event_timestamp_seconds',
      help: 'Unix time of the last object event a watch scope received; scopes without one since the agent started have no sample.',
      labelNames: ['account', 'kind', 'namespace'],
      registers,
      collect() {
        this.reset();
        for (const { account, kind, namespace, epochMs } of sources.lastEvents()) {
          this.set({ account, kind, namespace }, epochMs / 1000);
        }
      },
    }),
    uplinkBatchesInFlight: new Gauge({
      name: 'orch_agent_uplink_batches_in_flight',
      help: 'Batches of cache events taken from the buffer and not yet acknowledged by the control plane, retries included.',
      registers,
    }),
    uplinkAckDuration: new Histogram({
      name: 'orch_agent_uplink_ack_duration_seconds',
      help: 'Time from sending a batch of cache events to its acknowledgement by the control plane, retries included.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    schedulerQueueDepth: new Gauge({
      name: 'orch_agent_scheduler_queue_depth',
      help: 'Tasks waiting for a task-budget slot.',
      registers,
    }),
  };
}

export function createAgentMetrics(registry: Registry, sources: MetricSources) {
  registerDefaultMetrics(registry);
  const registers = [registry];
  // Registered in this order, which is the order of the scrape output.
  return {
    ...sessionMetrics(registers, sources),
    ...requestMetrics(registers),
    ...watchLoopMetrics(registers, sources),
  };
}

export type AgentMetrics = ReturnType<typeof createAgentMetrics>;

export function setConnectionState(metrics: AgentMetrics, state: ConnectionStateName) {
  for (const s of CONNECTION_STATES) metrics.connectionState.set({ state: s }, s === state ? 1 : 0);
}
