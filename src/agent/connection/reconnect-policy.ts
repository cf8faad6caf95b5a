// How long the agent waits before reconnecting to the control plane. Variant B: `cloudctl.backoff.*`
// (nanoseconds in the config), growing by the multiplier with jitter up to maxDelay. Variants A and
// C have no backoff settings: they wait the fixed `orchestrator.reconnectTimeoutMs` every time.
import type { BackoffOptions } from '../../lib/backoff.ts';
import type { AgentConfig } from '../config/index.ts';

const NANOS_PER_MS = 1_000_000;

export type ReconnectPolicy = Pick<BackoffOptions, 'initialDelayMs' | 'multiplier' | 'jitter' | 'maxDelayMs'>;

export function reconnectPolicy(config: AgentConfig): ReconnectPolicy {
  if (config.variant === 'B') {
    const { baseDelay, multiplier, jitter, maxDelay } = config.cloudctl.backoff;
    return {
      initialDelayMs: baseDelay / NANOS_PER_MS,
      multiplier,
      jitter,
      maxDelayMs: maxDelay / NANOS_PER_MS,
    };
  }
  const fixed = config.orchestrator.reconnectTimeoutMs;
  return { initialDelayMs: fixed, multiplier: 1, jitter: 0, maxDelayMs: fixed };
}
