// The observability feature's factory: one metrics registry per control plane (tests run several in
// one process), the metrics on it, and the probe and metrics routes. It closes with the HTTP API,
// first of all: from then on /ready reports "stopping" while the requests in flight finish.
import { Registry } from 'prom-client';
import type { Feature } from '../feature.ts';
import type { Route } from '../http/index.ts';
import { type CloudctlMetrics, createCloudctlMetrics } from './cloudctl-metrics.ts';
import { observabilityRoutes } from './observability-routes.ts';

export interface ObservabilityFeatureDeps {
  /** Agent sessions open now, read at scrape time. */
  sessions: () => number;
  /** Resolves once the database answers; for readiness. */
  ping: () => Promise<void>;
}

export interface ObservabilityFeature extends Feature {
  metrics: CloudctlMetrics;
  routes: Route[];
  /** From now on /ready answers DOWN, so traffic moves away while work drains. */
  close(): void;
}

export function observabilityFeature(deps: ObservabilityFeatureDeps): ObservabilityFeature {
  const registry = new Registry();
  let stopping = false;
  return {
    name: 'observability',
    phase: 'http',
    metrics: createCloudctlMetrics(registry, { sessions: deps.sessions }),
    routes: observabilityRoutes(registry, { ping: deps.ping, stopping: () => stopping }),
    close: () => {
      stopping = true;
    },
  };
}
