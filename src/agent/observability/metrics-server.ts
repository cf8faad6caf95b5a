// The metrics listener on `telemetry.port`: the Prometheus text format at `/metrics` and at
// `/prometheus_metrics` (the control plane's default scrape path). It binds all interfaces, since
// Prometheus scrapes the pod address; the spec gives it a port only.
import type { Registry } from 'prom-client';
import type { AgentConfig } from '../config/index.ts';
import { type RouteHandler, type SideServer, startSideServer } from './side-server.ts';

export function startMetricsServer(
  telemetry: AgentConfig['telemetry'],
  registry: Registry,
  onError: (error: Error) => void,
  host = '0.0.0.0',
): Promise<SideServer> {
  const metrics: RouteHandler = async (_req, res) => {
    const body = await registry.metrics();
    res.writeHead(200, { 'content-type': registry.contentType });
    res.end(body);
  };
  return startSideServer({
    setting: 'telemetry.port',
    host,
    port: telemetry.port,
    onError,
    routes: { '/metrics': metrics, '/prometheus_metrics': metrics },
  });
}
