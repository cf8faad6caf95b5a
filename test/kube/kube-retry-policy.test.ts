import { describe, expect, it } from 'vitest';
import { KubeApiError, kubeRetryPolicy } from '../../src/kube/index.ts';
import { withRetries } from '../../src/lib/retry.ts';

const defaults = {
  enabled: true,
  maxRetries: 3,
  backOffMs: 5,
  retryAnyError: false,
  retryableErrors: ['timeout', 'deadline exceeded'],
};
const apiError = (status: number, message: string) =>
  new KubeApiError(status, 'GET', '/api/v1/pods', { kind: 'Status', message, reason: 'x' });

async function attemptsUntilGivingUp(settings: typeof defaults, error: unknown) {
  let attempts = 0;
  await withRetries(async () => {
    attempts++;
    throw error;
  }, kubeRetryPolicy(settings)).catch(() => undefined);
  return attempts;
}

describe('orchestrator.retries', () => {
  it('makes at most maxRetries attempts of an error containing a retryable item, case-insensitively', async () => {
    expect(await attemptsUntilGivingUp(defaults, new Error('context Deadline Exceeded'))).toBe(3);
    expect(
      await attemptsUntilGivingUp(
        { ...defaults, maxRetries: 5 },
        apiError(504, 'the server timeout waiting'),
      ),
    ).toBe(5);
  });

  it('does not retry other errors unless retryAnyError', async () => {
    expect(await attemptsUntilGivingUp(defaults, new Error('connection reset by peer'))).toBe(1);
    expect(
      await attemptsUntilGivingUp(
        { ...defaults, retryAnyError: true },
        new Error('connection reset by peer'),
      ),
    ).toBe(3);
  });

  it('never retries an answer about the request itself, even with retryAnyError or a matching item', async () => {
    for (const [status, message] of [
      [400, 'bad request: timeout field'],
      [404, 'deployments "timeout" not found'],
      [409, 'conflict: the object has been modified; timeout'],
      [410, 'too old resource version (timeout)'],
      [422, 'Deployment "web" is invalid: spec.timeout'],
    ] as const) {
      expect(
        await attemptsUntilGivingUp({ ...defaults, retryAnyError: true }, apiError(status, message)),
      ).toBe(1);
      expect(await attemptsUntilGivingUp(defaults, apiError(status, message))).toBe(1);
    }
  });

  it('retries refusals that heal (401, 403: a rotated token, RBAC still propagating) only with retryAnyError', async () => {
    expect(await attemptsUntilGivingUp(defaults, apiError(403, 'forbidden'))).toBe(1);
    expect(
      await attemptsUntilGivingUp({ ...defaults, retryAnyError: true }, apiError(403, 'forbidden')),
    ).toBe(3);
    expect(
      await attemptsUntilGivingUp({ ...defaults, retryAnyError: true }, apiError(401, 'Unauthorized')),
    ).toBe(3);
    expect(
      await attemptsUntilGivingUp({ ...defaults, retryAnyError: true }, apiError(429, 'too many requests')),
    ).toBe(3);
  });

  it('makes one attempt when retries are disabled', async () => {
    expect(await attemptsUntilGivingUp({ ...defaults, enabled: false }, new Error('timeout'))).toBe(1);
  });

  it('waits backOffMs between attempts', async () => {
    const started = Date.now();
    await attemptsUntilGivingUp({ ...defaults, backOffMs: 100 }, new Error('timeout'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
  });
});
