// Variant decisions, resolved here once: a feature reads the setting it needs and never asks which
// variant it runs in. Variants A and C lack B's keys (`cloudctl.backoff`, cache groups, context log
// fields, `keepAliveOperationSeconds`); each function says what their absence means there.
import type { BackoffOptions } from '../../lib/backoff.ts';
import type { AgentConfig, AgentConfigB } from './schema/agent-config.ts';
import { CLOUDCTL_BACKOFF_DEFAULTS, type CloudctlBackoff } from './schema/cloudctl.ts';

const NANOS_PER_MS = 1_000_000;

export type BackoffPolicy = Pick<BackoffOptions, 'initialDelayMs' | 'multiplier' | 'jitter' | 'maxDelayMs'>;

/** `cloudctl.backoff.*` (nanoseconds in the config) as a backoff in milliseconds. */
function inMs({ baseDelay, multiplier, jitter, maxDelay }: CloudctlBackoff): BackoffPolicy {
  return {
    initialDelayMs: baseDelay / NANOS_PER_MS,
    multiplier,
    jitter,
    maxDelayMs: maxDelay / NANOS_PER_MS,
  };
}

/**
 * How long the agent waits before reconnecting to the control plane. B: `cloudctl.backoff.*`,
 * growing by the multiplier with jitter up to maxDelay. A and C have no backoff settings: they wait
 * the fixed `orchestrator.reconnectTimeoutMs` every time.
 */
export function reconnectBackoff(config: AgentConfig): BackoffPolicy {
  if (config.variant === 'B') return inMs(config.cloudctl.backoff);
  const fixed = config.orchestrator.reconnectTimeoutMs;
  return { initialDelayMs: fixed, multiplier: 1, jitter: 0, maxDelayMs: fixed };
}

/**
 * How a watch waits before restarting after a failure. B: `cloudctl.backoff.*`, as for reconnects.
 * A and C: the same setting's defaults (grpc's own), since their fixed reconnect wait would hammer
 * an API server that refuses a watch.
 */
export function watchRestartBackoff(config: AgentConfig): BackoffPolicy {
  return inMs(config.variant === 'B' ? config.cloudctl.backoff : CLOUDCTL_BACKOFF_DEFAULTS);
}

/**
 * How accounts start watching: `size` at a time (0: all at once), `delayMs` apart. B:
 * `orchestrator.cacheGroupSize` and `cacheGroupDelayMs`; A and C start all accounts at once.
 */
export function watchStartGroups(config: AgentConfig): { size: number; delayMs: number } {
  if (config.variant !== 'B') return { size: 0, delayMs: 0 };
  return { size: config.orchestrator.cacheGroupSize, delayMs: config.orchestrator.cacheGroupDelayMs };
}

/**
 * Whether every list of a scope takes a slot of the task budget (A and C), or only its first (B,
 * whose budget caps the concurrent initial syncs: relists after 410 do not wait). docs/decisions.md,
 * "The task budget".
 */
export function budgetEveryList(config: AgentConfig): boolean {
  return config.variant !== 'B';
}

/**
 * `logging.fields`, the context every log entry carries (B). A and C have no such setting, and
 * their entries carry no context at all, not even the detected cluster and namespace: undefined.
 */
export function logContextFields(config: AgentConfig): Record<string, string | null> | undefined {
  return config.variant === 'B' ? config.logging.fields : undefined;
}

/** Session restart after this long without an operation; 0 never. Only B has the setting. */
export function operationIdleMs(config: AgentConfig): number {
  return config.variant === 'B' ? config.cloudctl.keepAliveOperationSeconds * 1000 : 0;
}

/**
 * `orchestrator.serverSideApply` (global, per-kind and annotation-driven settings): B only. A and C
 * decide per account with `skipServerSideApply` and `skipManifestDefaults`: undefined.
 */
export function serverSideApplySettings(
  config: AgentConfig,
): AgentConfigB['orchestrator']['serverSideApply'] | undefined {
  return config.variant === 'B' ? config.orchestrator.serverSideApply : undefined;
}
