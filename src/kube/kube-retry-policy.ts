// `orchestrator.retries.*` as a retry policy (spec, Errors 1): at most `maxRetries` attempts of the
// same request, `backOffMs` apart; an error is retried only when its text contains an item of
// `retryableErrors` (case-insensitive), unless `retryAnyError` is set, which retries any error a
// retry can help with. Answers in which the API server judged the request itself are never retried:
// the same request gets the same answer, and repeating a write that was refused (an update conflict,
// a create of an existing name) only hides the refusal behind `maxRetries × backOffMs` of waiting.
// 401 and 403 are not among them: a rotated token or an RBAC binding still propagating does heal,
// so `retryAnyError` retries them.
import type { RetryPolicy } from '../lib/retry.ts';
import { KubeApiError } from './kube-api-error.ts';

/** `orchestrator.retries`, as the agent's config schema resolves it. */
export interface KubeRetrySettings {
  enabled: boolean;
  maxRetries: number;
  backOffMs: number;
  retryableErrors: string[];
  retryAnyError: boolean;
}

/** Bad request, not found, method not allowed, not acceptable, conflict, gone, too large, media type, invalid. */
export const UNCHANGING_STATUSES: ReadonlySet<number> = new Set([
  400, 404, 405, 406, 409, 410, 413, 415, 422,
]);

export function kubeRetryPolicy(retries: KubeRetrySettings): RetryPolicy {
  const needles = retries.retryableErrors.map((e) => e.toLowerCase());
  return {
    attempts: retries.enabled ? Math.max(1, retries.maxRetries) : 1,
    delayMs: retries.backOffMs,
    retryable: (error) => {
      if (error instanceof KubeApiError && UNCHANGING_STATUSES.has(error.status)) return false;
      if (retries.retryAnyError) return true;
      const text = (
        error instanceof Error ? `${error.name} ${error.message} ${String(error.cause ?? '')}` : String(error)
      ).toLowerCase();
      return needles.some((needle) => text.includes(needle));
    },
  };
}
