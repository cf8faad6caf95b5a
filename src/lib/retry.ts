// Retries an async call: at most `attempts` tries, `delayMs` apart, only while `retryable` says so.
// The wait honours an abort signal, so a stopping agent does not sit out a back-off.
import { setTimeout as sleep } from 'node:timers/promises';

export interface RetryPolicy {
  attempts: number;
  delayMs: number;
  retryable: (error: unknown) => boolean;
}

export async function withRetries<T>(
  call: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  signal?: AbortSignal,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call(attempt);
    } catch (error) {
      if (attempt >= policy.attempts || !policy.retryable(error) || signal?.aborted) throw error;
      await sleep(policy.delayMs, undefined, { signal });
    }
  }
}
