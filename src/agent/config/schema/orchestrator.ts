// `orchestrator.*`: global settings for reaching the clusters (retries, proxies, pacing, apply policy)
// and the list of accounts.
import { z } from 'zod';
import { nonEmptyString, nonNegativeInt } from '../../../lib/schema-primitives.ts';
import { setting } from '../../../lib/setting-meta.ts';
import { uniqueEntries } from '../../../lib/unique-entries.ts';

/** Account names identify accounts to the control plane: they must be unique. */
const uniqueAccountNames = uniqueEntries(
  'name',
  'orchestrator.accounts',
  (name, first) => `duplicate account name '${name}' (first used by ${first})`,
);

const retries = z.object({
  enabled: setting(z.boolean().default(true), {
    description:
      'retry failed requests to the API server: every request (discovery, the version check, lists, reads and writes of every operation); watch streams resume or relist instead',
  }),
  maxRetries: setting(nonNegativeInt().default(3), { description: 'attempts of the same request' }),
  backOffMs: setting(nonNegativeInt().default(3000), {
    description: 'wait between attempts in milliseconds',
  }),
  retryAnyError: setting(z.boolean().default(false), {
    description:
      'true retries any error a retry can help with (connection failures, timeouts, 5xx, 429, 401, 403); never answers about the request itself (400, 404, 405, 406, 409, 410, 413, 415, 422). false: only errors containing an item of retryableErrors',
  }),
  retryableErrors: setting(z.array(nonEmptyString()).default(['timeout', 'deadline exceeded']), {
    description: 'error substrings that make a request retryable when retryAnyError is false',
  }),
});

const policy = () => z.enum(['always', 'never', 'allowed']).default('allowed');

const serverSideApply = z.object({
  enabled: setting(policy(), {
    description:
      '`always`, `never`, or `allowed` (client-side apply unless the annotation or a kind entry asks)',
    since: '1.0.47',
  }),
  clearManagedFields: setting(policy(), {
    description: 'remove managed fields so the agent is the only manager',
    since: '1.0.47',
  }),
  manifestDefaults: setting(policy(), {
    description: 'add field defaults to applied manifests',
    since: '1.0.47',
  }),
  kinds: setting(
    z
      .array(
        z.object({
          kind: setting(nonEmptyString(), { description: 'kind the entry applies to', since: '1.0.47' }),
          enabled: setting(policy(), {
            description: 'per-kind form of serverSideApply.enabled',
            since: '1.0.47',
          }),
          clearManagedFields: setting(policy(), {
            description: 'per-kind form of serverSideApply.clearManagedFields',
            since: '1.0.47',
          }),
          manifestDefaults: setting(policy(), {
            description: 'per-kind form of serverSideApply.manifestDefaults',
            since: '1.0.47',
          }),
        }),
      )
      .default([]),
    { description: 'per-kind server-side apply policy', since: '1.0.47' },
  ),
});

/** Settings every variant has. `accounts` is the variant's account schema. */
export function orchestratorShape<A extends z.ZodType<{ name: string }>>(account: A) {
  return {
    noProxy: setting(z.boolean().default(false), {
      description: 'ignore proxy environment variables for every cluster',
      since: '0.3.1',
    }),
    reconnectTimeoutMs: setting(nonNegativeInt().default(5000), {
      description:
        'wait in ms before each reconnect to the control plane (A, C); B paces reconnects by cloudctl.backoff.* and warns when this is set',
    }),
    retries: retries.prefault({}),
    accounts: setting(z.array(account).superRefine(uniqueAccountNames).default([]), {
      description: 'the clusters this agent serves',
    }),
  };
}

/** Settings only variant B has. */
export function orchestratorShapeB() {
  return {
    cacheGroupSize: setting(nonNegativeInt().default(0), {
      description: 'accounts per group when delaying watcher start; 0 starts all at once',
    }),
    cacheGroupDelayMs: setting(nonNegativeInt().default(0), {
      description: 'wait between account groups when starting watchers',
    }),
    serverSideApply: serverSideApply.prefault({}),
  };
}
