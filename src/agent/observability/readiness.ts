// The agent's readiness: the control-plane session, every account it caches synced, and operations
// accepted (not shutting down). Each is a named check in the registry the health server serves.
import type { HealthCheck, HealthChecks } from './health-checks.ts';

export interface ReadinessSources {
  /** The connection's own check (a registered session). */
  connection: HealthCheck;
  /** Accounts the initial sync still waits for. */
  waitingForSync: () => string[];
  /** False once shutdown stops taking operations. */
  acceptingOperations: () => boolean;
}

export function registerReadiness(checks: HealthChecks, sources: ReadinessSources): void {
  checks.register(sources.connection);
  checks.register({
    name: 'initial-sync',
    kind: 'readiness',
    check: () => {
      const waiting = sources.waitingForSync();
      return waiting.length === 0
        ? { ok: true, message: 'every active account has synced' }
        : { ok: false, message: `initial sync in progress: ${waiting.join(', ')}` };
    },
  });
  checks.register({
    name: 'operations',
    kind: 'readiness',
    check: () =>
      sources.acceptingOperations()
        ? { ok: true, message: 'accepting operations' }
        : { ok: false, message: 'shutting down: not accepting operations' },
  });
}
