// `orchestrator.retries.*` as a retry policy (spec, Errors 1): at most `maxRetries` attempts of the
// same request, `backOffMs` apart; an error is retried only when its text contains an item of
// `retryableErrors` (case-insensitive), unless `retryAnyError` is set. Client errors that cannot
// change on a retry (4xx other than 408 and 429) are never retried.
import type { RetryPolicy } from '../../lib/retry.ts';
import type { AgentConfig } from '../config/index.ts';
import { KubeApiError } from './kube-api-error.ts';

export function kubeRetryPolicy(retries: AgentConfig['orchestrator']['retries']): RetryPolicy {
  const needles = retries.retryableErrors.map((e) => e.toLowerCase());
  return {
    attempts: retries.enabled ? Math.max(1, retries.maxRetries) : 1,
    delayMs: retries.backOffMs,
    retryable: (error) => {
      if (
        error instanceof KubeApiError &&
        error.status >= 400 &&
        error.status < 500 &&
        error.status !== 408 &&
        error.status !== 429
      ) {
        return false;
      }
      if (retries.retryAnyError) return true;
      const text = (
        error instanceof Error ? `${error.name} ${error.message} ${String(error.cause ?? '')}` : String(error)
      ).toLowerCase();
      return needles.some((needle) => text.includes(needle));
    },
  };
}
