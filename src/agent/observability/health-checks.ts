// Named liveness and readiness checks. Parts of the agent register what they know (the control-plane
// connection, the initial sync of accounts); the health server only asks.

export type ProbeKind = 'liveness' | 'readiness';

export interface CheckResult {
  ok: boolean;
  message: string;
}

export interface HealthCheck {
  name: string;
  kind: ProbeKind;
  check: () => CheckResult;
}

export interface ProbeReport {
  ok: boolean;
  checks: Array<{ name: string } & CheckResult>;
}

export class HealthChecks {
  readonly #checks = new Map<string, HealthCheck>();

  register(check: HealthCheck): () => void {
    this.#checks.set(check.name, check);
    return () => this.#checks.delete(check.name);
  }

  /** Liveness is also required for readiness: a process that is not alive is not ready. */
  report(kind: ProbeKind): ProbeReport {
    const relevant = [...this.#checks.values()].filter((c) => c.kind === kind || c.kind === 'liveness');
    const checks = relevant.map((c) => {
      try {
        return { name: c.name, ...c.check() };
      } catch (error) {
        return {
          name: c.name,
          ok: false,
          message: `check failed: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
    });
    return { ok: checks.every((c) => c.ok), checks };
  }
}
