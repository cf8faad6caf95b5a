// Settings that a variant accepts but does not use, written in a file of that variant: loading goes on,
// and the warning says what acts instead, so that a value copied from an A or C file is not silently
// inert. (`orchestrator.reconnectTimeoutMs` stays in B's table, as the spec lists it for every variant.)
import { isRecord } from '../../lib/is-record.ts';
import type { KeyFinding } from './key-check.ts';
import type { Variant } from './schema/variant.ts';

const NANOS_PER_MS = 1_000_000;

export function variantNotes(settings: Record<string, unknown>, variant: Variant): KeyFinding[] {
  const findings: KeyFinding[] = [];
  const orchestrator = settings.orchestrator;
  const reconnect = isRecord(orchestrator) ? orchestrator.reconnectTimeoutMs : undefined;
  if (variant === 'B' && reconnect !== undefined) {
    const hint =
      typeof reconnect === 'number' && Number.isInteger(reconnect) && reconnect > 0
        ? `; to wait ${reconnect} ms after the first failure, set cloudctl.backoff.baseDelay: ${reconnect * NANOS_PER_MS}`
        : '';
    findings.push({
      severity: 'warning',
      path: ['orchestrator', 'reconnectTimeoutMs'],
      message: `has no effect in variant B: reconnects to the control plane follow cloudctl.backoff.* (baseDelay, multiplier, jitter, maxDelay)${hint}`,
    });
  }
  return findings;
}
