// The metric providers of cloudctl's config (`analysis.providers`), ready to query: what a file's
// names are checked against on load and what an analysis step asks. `builtin` is no entry: it needs
// no client, only the agent's reads.
import type { PrometheusProvider } from '../../../config/index.ts';
import type { ConfiguredProvider } from '../../deployment-file/analysis-providers.ts';
import { type PrometheusClient, prometheusClient } from './prometheus-client.ts';

export interface MetricProviders {
  /** The configured names and types, for the file's checks. */
  readonly configured: readonly ConfiguredProvider[];
  prometheus(name: string): PrometheusClient | undefined;
}

export function metricProviders(providers: readonly PrometheusProvider[]): MetricProviders {
  const clients = new Map(providers.map((p) => [p.name, prometheusClient(p)]));
  return {
    configured: providers.map((p) => ({ name: p.name, type: p.type })),
    prometheus: (name) => clients.get(name),
  };
}
