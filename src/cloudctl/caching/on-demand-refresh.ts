// On-demand cache refresh (Spinnaker's `POST /cache/{cloudProvider}/manifest`): the agent holding
// the account reads one object now, and the cache stores it, or drops it when the cluster no longer
// has it. The caller waits a short while for that; past it, the request goes on and is listed as
// pending. Requests are kept in memory, one per object (the newest wins), and listed until a while
// after they end, as Spinnaker lists its on-demand entries with when they were processed.
import type { Logger } from 'pino';
import { z } from 'zod';
import { isRecord } from '../../lib/is-record.ts';
import { scrubObject } from '../../lib/object-scrub.ts';
import { HttpError } from '../http/index.ts';
import { type AgentOperations, askAgentIfPresent } from '../operations/index.ts';
import type { CacheStore, ObjectKey } from './cache-store.ts';
import { type KindResolver, spinnakerKind, splitManifestName } from './kind-resolver.ts';

export interface OnDemandOptions {
  /** How long a request waits for the agent before it is answered as pending (202); 5 s. */
  answerWithinMs: number;
  /** How long an ended request stays listed; 10 minutes. */
  keepEndedMs: number;
  /** Ended requests listed at most; the oldest go first. */
  maxEnded: number;
}

export const ON_DEMAND_DEFAULTS: OnDemandOptions = {
  answerWithinMs: 5000,
  keepEndedMs: 10 * 60_000,
  maxEnded: 1000,
};

export const onDemandDetailsSchema = z.object({
  account: z.string().describe('the account whose cluster holds the object'),
  location: z.string().describe('the namespace; empty for cluster-scoped objects'),
  name: z.string().describe('the object as "<kind> <name>", e.g. "deployment web"'),
});
export type OnDemandDetails = z.infer<typeof onDemandDetailsSchema>;

export const onDemandRequestSchema = z
  .object({
    id: z
      .string()
      .describe(
        "the object's cache identifier: orchestrator:infrastructure:<kind>:<account>:<namespace>:<name>",
      ),
    details: onDemandDetailsSchema,
    state: z
      .enum(['PENDING', 'STORED', 'EVICTED', 'FAILED'])
      .describe('PENDING until the agent answers; STORED, EVICTED (not in the cluster) or FAILED after'),
    cacheTime: z.int().describe('when the request was made, ms since the epoch'),
    processedCount: z.int().describe('0 while pending, 1 once it ended'),
    processedTime: z.int().describe('when it ended, ms since the epoch; -1 while pending'),
    resourceVersion: z.string().nullable().describe('the resourceVersion the agent read, once stored'),
    error: z.string().nullable().describe('why it failed'),
  })
  .describe('OnDemandRequest');
export type OnDemandRequest = z.infer<typeof onDemandRequestSchema>;

export const onDemandResultSchema = z
  .object({
    cachedIdentifiersByType: z
      .record(z.string(), z.array(z.string()))
      .describe('the identifiers stored or being stored, by kind, as Spinnaker answers'),
    state: z
      .enum(['PENDING', 'STORED', 'EVICTED', 'NOT_CACHED'])
      .describe('NOT_CACHED: the account does not cache the kind, so there is nothing to refresh'),
    message: z.string(),
    request: onDemandRequestSchema.nullable().describe('the request as listed; null when NOT_CACHED'),
  })
  .describe('OnDemandResult');
export type OnDemandResult = z.infer<typeof onDemandResultSchema>;

export interface OnDemandRefreshDeps {
  cache: CacheStore;
  kinds: KindResolver;
  /** Sends the agent's `get` (the operation dispatcher). */
  operations: AgentOperations;
  /** Whether a connected agent serves the account. */
  served(account: string): Promise<boolean>;
  logger: Logger;
  now: () => Date;
  options?: Partial<OnDemandOptions>;
}

export class OnDemandRefresh {
  readonly #deps: OnDemandRefreshDeps;
  readonly #options: OnDemandOptions;
  /** By cache identifier; Map order is the order of the last request per object. */
  readonly #requests = new Map<string, OnDemandRequest>();

  constructor(deps: OnDemandRefreshDeps) {
    this.#deps = deps;
    this.#options = { ...ON_DEMAND_DEFAULTS, ...deps.options };
  }

  /** Refreshes the object; answers once it is stored, or as pending after `answerWithinMs`. */
  async refresh(details: OnDemandDetails): Promise<OnDemandResult> {
    const { cache, kinds, now } = this.#deps;
    const { account } = details;
    const manifest = splitManifestName(details.name);
    const resolved = await kinds.resolve(account, manifest.kind);
    if (resolved === undefined) {
      throw new HttpError(
        'REQUEST_INVALID',
        `body.name: unknown kind '${manifest.kind}': not a built-in kind, and no object of it is cached for account ${account}`,
      );
    }
    const group = resolved.apiVersion.includes('/') ? (resolved.apiVersion.split('/')[0] ?? '') : '';
    const kindName = spinnakerKind(resolved.apiVersion, resolved.kind);
    const cached = (await cache.kinds([account])).find((k) => k.group === group && k.kind === resolved.kind);
    if (cached === undefined) {
      // What the agent does not watch would never be updated once stored: Spinnaker's answer for a
      // kind no caching agent handles is the same 200 with nothing cached.
      return {
        cachedIdentifiersByType: {},
        state: 'NOT_CACHED',
        message: `account ${account} does not cache ${kindName}: nothing to refresh`,
        request: null,
      };
    }
    if (cached.namespaced === true && details.location === '') {
      throw new HttpError(
        'REQUEST_INVALID',
        `body.location: ${kindName} objects live in namespaces; name one`,
      );
    }
    const key: ObjectKey = {
      account,
      group,
      kind: resolved.kind,
      namespace: cached.namespaced === false ? '' : details.location,
      name: manifest.name,
    };
    if (!(await this.#deps.served(account))) {
      throw new HttpError('AGENT_UNAVAILABLE', `no connected agent serves account ${account}`);
    }
    const id = `orchestrator:infrastructure:${kindName}:${account}:${key.namespace}:${key.name}`;
    const requestedAt = now();
    const request: OnDemandRequest = {
      id,
      details,
      state: 'PENDING',
      cacheTime: requestedAt.getTime(),
      processedCount: 0,
      processedTime: -1,
      resourceVersion: null,
      error: null,
    };
    this.#prune(requestedAt);
    this.#requests.delete(id);
    this.#requests.set(id, request);

    const ended = this.#run(request, key, resolved.apiVersion, requestedAt);
    const failure = await within(ended, this.#options.answerWithinMs);
    if (failure === 'pending') {
      return {
        cachedIdentifiersByType: { [kindName]: [id] },
        state: 'PENDING',
        message: `the agent has not answered within ${this.#options.answerWithinMs} ms; the request goes on`,
        request: { ...request },
      };
    }
    if (failure !== undefined) throw failure;
    const stored = request.state === 'STORED';
    return {
      cachedIdentifiersByType: stored ? { [kindName]: [id] } : {},
      state: stored ? 'STORED' : 'EVICTED',
      message: stored
        ? `stored ${details.name} at resourceVersion ${request.resourceVersion}`
        : `${details.name} is not in the cluster; removed from the cache`,
      request: { ...request },
    };
  }

  /** The requests listed now, of the given accounts, optionally only the one with this id. */
  list(accounts: ReadonlySet<string>, id?: string): OnDemandRequest[] {
    this.#prune(this.#deps.now());
    return [...this.#requests.values()]
      .filter((r) => accounts.has(r.details.account) && (id === undefined || r.id === id))
      .map((r) => ({ ...r }));
  }

  /** Runs the request to its end; resolves with why it failed, never rejects. */
  async #run(
    request: OnDemandRequest,
    key: ObjectKey,
    apiVersion: string,
    requestedAt: Date,
  ): Promise<Error | undefined> {
    const { cache, now, logger } = this.#deps;
    try {
      const payload = {
        apiVersion,
        kind: key.kind,
        ...(key.namespace === '' ? {} : { namespace: key.namespace }),
        name: key.name,
        asCached: true,
      };
      const answer = await askAgentIfPresent(
        this.#deps.operations,
        { account: key.account, type: 'get', payload },
        `read ${request.details.name}`,
      );
      // Absent from the cluster, or left out by the account (onlyPlatformManaged): not to be cached.
      const object = answer?.object ?? null;
      if (object === null) {
        await cache.evict(key, requestedAt);
        this.#end(request, 'EVICTED');
        return undefined;
      }
      // An agent older than the asCached option sends the object as it is: scrub it here too.
      const scrubbed = scrubObject(object);
      const metadata = isRecord(scrubbed.metadata) ? scrubbed.metadata : {};
      const resourceVersion = String(metadata.resourceVersion ?? '');
      const objectApiVersion = String(scrubbed.apiVersion ?? apiVersion);
      await cache.refresh(
        {
          ...key,
          namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
          version: objectApiVersion.includes('/') ? (objectApiVersion.split('/')[1] ?? '') : objectApiVersion,
          resourceVersion,
          body: JSON.stringify(scrubbed),
        },
        now(),
      );
      request.resourceVersion = resourceVersion;
      this.#end(request, 'STORED');
      return undefined;
    } catch (error) {
      const failure = asHttpError(error);
      this.#end(request, 'FAILED', failure.message);
      if (failure.code === 'INTERNAL')
        logger.error({ err: error, id: request.id }, 'on-demand refresh failed');
      else logger.info({ id: request.id, error: failure.message }, 'on-demand refresh failed');
      return failure;
    }
  }

  #end(request: OnDemandRequest, state: OnDemandRequest['state'], error?: string): void {
    request.state = state;
    request.processedCount = 1;
    request.processedTime = this.#deps.now().getTime();
    request.error = error ?? null;
  }

  /** Forgets ended requests past `keepEndedMs`, and the oldest beyond `maxEnded`. */
  #prune(now: Date): void {
    const ended = [...this.#requests.values()].filter((r) => r.state !== 'PENDING');
    const expired = now.getTime() - this.#options.keepEndedMs;
    const excess = ended.length - this.#options.maxEnded;
    ended.forEach((r, index) => {
      if (r.processedTime < expired || index < excess) this.#requests.delete(r.id);
    });
  }
}

/** A failure as the HTTP API reports it: the agent's (already an HttpError), or cloudctl's own. */
function asHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  return new HttpError('INTERNAL', 'cloudctl could not store the object; its log has the cause', {
    cause: error,
  });
}

/** What `ended` resolves with, or 'pending' when it takes longer than `ms`. */
async function within<T>(ended: Promise<T>, ms: number): Promise<T | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'pending'>((resolve) => {
    timer = setTimeout(() => resolve('pending'), ms);
  });
  try {
    return await Promise.race([ended, late]);
  } finally {
    clearTimeout(timer);
  }
}
