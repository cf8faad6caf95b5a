// Every metric cloudctl exports, defined in one place under the `cloudctl_` prefix, on a registry
// passed in (tests run several control planes in one process), beside the default process metrics.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { registerDefaultMetrics } from '../../lib/default-metrics.ts';

export interface MetricSources {
  /** Read at scrape time, so the gauge cannot drift from the registry of sessions. */
  sessions: () => number;
}

export function createCloudctlMetrics(registry: Registry, sources: MetricSources) {
  registerDefaultMetrics(registry);
  const registers = [registry];
  const httpRequests = new Counter({
    name: 'cloudctl_http_requests_total',
    help: 'HTTP API requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const httpDuration = new Histogram({
    name: 'cloudctl_http_request_duration_seconds',
    help: 'Time to answer an HTTP API request, by method and route pattern.',
    labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  return {
    sessions: new Gauge({
      name: 'cloudctl_agent_sessions',
      help: 'Agent sessions open now.',
      registers,
      collect() {
        this.set(sources.sessions());
      },
    }),
    eventsIngested: new Counter({
      name: 'cloudctl_cache_events_ingested_total',
      help: 'Resource events stored from agents, by account.',
      labelNames: ['account'],
      registers,
    }),
    storeWriteSeconds: new Histogram({
      name: 'cloudctl_store_write_duration_seconds',
      help: 'Time to commit one cache batch from an agent.',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    watchClients: new Gauge({
      name: 'cloudctl_watch_clients',
      help: 'Clients following GET /watch (and the status page’s copy of it) now.',
      registers,
    }),
    watchClosed: new Counter({
      name: 'cloudctl_watch_clients_closed_total',
      help: 'Streams of GET /watch cloudctl ended itself, by reason (SLOW_CLIENT, SHUTTING_DOWN).',
      labelNames: ['reason'],
      registers,
    }),
    operations: new Counter({
      name: 'cloudctl_operations_total',
      help: 'Operations sent to agents that ended, by type and outcome (succeeded, failed, timed_out, no_agent).',
      labelNames: ['type', 'outcome'],
      registers,
    }),
    http: {
      observe(method: string, route: string, status: number, seconds: number) {
        httpRequests.inc({ method, route, status: String(status) });
        httpDuration.observe({ method, route }, seconds);
      },
    },
  };
}

export type CloudctlMetrics = ReturnType<typeof createCloudctlMetrics>;
