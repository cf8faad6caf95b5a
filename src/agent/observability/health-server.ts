// The health server on `server.host`:`server.port` (TLS per `server.ssl.*`): liveness and readiness
// probes following Kubernetes conventions (200 when passing, 503 with the failing checks otherwise;
// `/healthz`, `/livez` and `/readyz` as aliases), and admin JSON views of accounts, watches and
// operations.
import type { AccountStatus } from '../accounts/index.ts';
import type { AgentConfig } from '../config/index.ts';
import type { OperationRecord } from '../operations/index.ts';
import type { WatchStatus } from '../watch/index.ts';
import type { HealthChecks, ProbeKind } from './health-checks.ts';
import { ListQueryError, pageOf } from './list-query.ts';
import { type RouteHandler, type SideServer, sendJson, startSideServer } from './side-server.ts';

export interface AdminSources {
  accounts: () => AccountStatus[];
  watches: () => WatchStatus[];
  operations: () => { inFlight: OperationRecord[]; recent: OperationRecord[] };
}

export function startHealthServer(
  server: AgentConfig['server'],
  checks: HealthChecks,
  sources: AdminSources,
  onError: (error: Error) => void,
): Promise<SideServer> {
  const probe =
    (kind: ProbeKind): RouteHandler =>
    (_req, res) => {
      const report = checks.report(kind);
      sendJson(res, report.ok ? 200 : 503, { status: report.ok ? 'UP' : 'DOWN', checks: report.checks });
    };
  const list =
    <T extends object>(items: () => T[], filterable: ReadonlyArray<keyof T & string>): RouteHandler =>
    (_req, res, url) => {
      try {
        sendJson(res, 200, pageOf(items(), url, filterable));
      } catch (error) {
        if (!(error instanceof ListQueryError)) throw error;
        sendJson(res, 400, { error: error.message });
      }
    };
  const ssl = server.ssl;
  return startSideServer({
    setting: 'server.port',
    host: server.host,
    port: server.port,
    onError,
    tls:
      ssl.enabled && ssl.certFile !== undefined && ssl.keyFile !== undefined
        ? {
            certFile: ssl.certFile,
            keyFile: ssl.keyFile,
            passphrase: ssl.keyFilePassword ?? ssl.keyPassword,
            caCertFile: ssl.caCertFile,
            clientAuth: ssl.clientAuth,
          }
        : undefined,
    routes: {
      '/health': probe('liveness'),
      '/healthz': probe('liveness'),
      '/livez': probe('liveness'),
      '/ready': probe('readiness'),
      '/readyz': probe('readiness'),
      '/accounts': list(sources.accounts, ['name', 'state', 'source']),
      '/watches': list(sources.watches, ['account', 'kind', 'namespace', 'state']),
      '/operations': (_req, res) => sendJson(res, 200, sources.operations()),
    },
  });
}
