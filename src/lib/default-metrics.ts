// prom-client's default process and Node.js metrics, less its three `nodejs_active_*_total` gauges: a
// `_total` gauge breaks Prometheus naming (promlint rejects it), and its own
// `nodejs_active_resources{type}` gauge already counts the same handles and requests.
import { collectDefaultMetrics, type Registry } from 'prom-client';

const MISNAMED_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

export function registerDefaultMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const misnamed of MISNAMED_DEFAULTS) registry.removeSingleMetric(misnamed);
}
