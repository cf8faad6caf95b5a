// The agent's side listeners, started together: health (always), metrics (`telemetry.enabled`) and
// pprof (`pprof.enabled`). If one cannot start, those already listening are closed before the error
// goes on, so a failed start leaves no port open.
import type { Registry } from 'prom-client';
import type { Log } from '../../lib/log.ts';
import type { AgentConfig } from '../config/index.ts';
import type { HealthChecks } from './health-checks.ts';
import { type AdminSources, startHealthServer } from './health-server.ts';
import { startMetricsServer } from './metrics-server.ts';
import { startPprofServer } from './pprof/pprof-server.ts';
import type { SideServer } from './side-server.ts';

export interface SideServers {
  /** Each listener's URL by name, for the start-up log line. */
  urls: Record<string, string>;
  close(): Promise<void>;
}

export async function startSideServers(
  config: AgentConfig,
  deps: { checks: HealthChecks; admin: AdminSources; metrics: Registry; log: Log },
): Promise<SideServers> {
  const onError = (error: Error) => deps.log.error({ err: error }, 'side server error');
  const servers: Array<[string, SideServer]> = [];
  const close = async () => {
    for (const [, server] of servers.splice(0).reverse()) await server.close();
  };
  try {
    servers.push(['health', await startHealthServer(config.server, deps.checks, deps.admin, onError)]);
    if (config.telemetry.enabled)
      servers.push(['metrics', await startMetricsServer(config.telemetry, deps.metrics, onError)]);
    if (config.pprof.enabled)
      servers.push(['pprof', await startPprofServer(config.pprof, onError, Date.now)]);
  } catch (error) {
    await close();
    throw error;
  }
  return { urls: Object.fromEntries(servers.map(([name, server]) => [name, server.url])), close };
}
