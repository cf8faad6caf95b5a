// The observability feature's factory: one metrics registry per control plane (tests run several in
// one process), the metrics on it, and the probe and metrics routes, which report "stopping" once
// the control plane begins to close.
import { Registry } from 'prom-client';
import type { Route } from '../http/index.ts';
import { type CloudctlMetrics, createCloudctlMetrics } from './cloudctl-metrics.ts';
import { observabilityRoutes } from './observability-routes.ts';

export interface ObservabilityDeps {
  /** Agent sessions open now, read at scrape time. */
  sessions: () => number;
  /** Resolves once the database answers; for readiness. */
  ping: () => Promise<void>;
}

export interface Observability {
  metrics: CloudctlMetrics;
  routes: Route[];
  /** From now on /ready answers DOWN, so traffic moves away while work drains. */
  stopping(): void;
}

export function observabilityFeature(deps: ObservabilityDeps): Observability {
  const registry = new Registry();
  let stopping = false;
  return {
    metrics: createCloudctlMetrics(registry, { sessions: deps.sessions }),
    routes: observabilityRoutes(registry, { ping: deps.ping, stopping: () => stopping }),
    stopping: () => {
      stopping = true;
    },
  };
}
