// orchagent.v1.Caching: stores the resource events, snapshots and bookmarks agents stream up, in
// order, acknowledging each batch once it is committed (and counting its events and its commit
// time); batches that arrive while a commit runs are committed together next; answers
// resume-version queries. An agent may only write and read the accounts it registered
// and the cloudctl accounts it holds.
import { type ServerDuplexStream, status } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import {
  type CacheAck,
  type CacheBatch__Output,
  type CachingHandlers,
  toTimestamp,
} from '../../proto/index.ts';
import type { AgentAuthenticator } from '../auth/index.ts';
import { RpcFailure } from '../grpc/index.ts';
import type { CloudctlMetrics } from '../observability/index.ts';
import { accountOf, toCacheChange } from './cache-items.ts';
import type { CacheChange, CacheStore } from './cache-store.ts';
import type { IngestRate } from './ingest-rate.ts';

/** What the caching service uses: passed in, so tests can drive the clock and read the logs. */
export interface CachingRpcDeps {
  authenticator: AgentAuthenticator;
  store: {
    cache: CacheStore;
    /** The agent's own accounts (its config file's). */
    agents: { accountsOf(agentId: string): Promise<string[]> };
    /** The cloudctl accounts the agent holds (dynamic accounts). */
    dynamicAccounts: { accountsHeldBy(agentId: string): Promise<string[]> };
  };
  logger: Logger;
  metrics: Pick<CloudctlMetrics, 'eventsIngested' | 'storeWriteSeconds'>;
  now: () => Date;
}

const PUBLISH = '/orchagent.v1.Caching/Publish';
const RESUME = '/orchagent.v1.Caching/GetResumeVersions';

async function ownedAccounts(deps: CachingRpcDeps, agentId: string): Promise<Set<string>> {
  const [own, held] = await Promise.all([
    deps.store.agents.accountsOf(agentId),
    deps.store.dynamicAccounts.accountsHeldBy(agentId),
  ]);
  return new Set([...own, ...held]);
}

/** Resource events (upserts and deletes, not snapshot marks or bookmarks) per account. */
function eventsByAccount(changes: readonly CacheChange[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const change of changes) {
    if (change.type === 'upsert' || change.type === 'delete')
      counts.set(change.account, (counts.get(change.account) ?? 0) + 1);
  }
  return counts;
}

/** Batches read ahead of the one being committed; past this many the stream is paused. */
const READ_AHEAD = 4;
/** At most this many queued batches are committed together in one transaction. */
const GROUP_MAX = 8;

type PublishCall = ServerDuplexStream<CacheBatch__Output, CacheAck>;

/**
 * One agent's publish stream: batches are read a few ahead, committed in order (those that queued
 * during a commit together), and acknowledged; a batch for an account the agent does not serve ends
 * the stream.
 */
class PublishStream {
  readonly #call: PublishCall;
  readonly #deps: CachingRpcDeps;
  readonly #rate: IngestRate;
  readonly #agentId: string;
  readonly #log: Logger;
  #owned: Set<string> | undefined;
  #failed = false;
  #ended = false;
  #committing = false;
  #paused = false;
  readonly #queued: CacheBatch__Output[] = [];

  constructor(call: PublishCall, deps: CachingRpcDeps, rate: IngestRate, agentId: string) {
    this.#call = call;
    this.#deps = deps;
    this.#rate = rate;
    this.#agentId = agentId;
    this.#log = deps.logger.child({ agentId, peer: call.getPeer(), method: PUBLISH });
  }

  start(): void {
    const call = this.#call;
    call.on('data', (batch: CacheBatch__Output) => {
      if (this.#failed) return;
      this.#queued.push(batch);
      if (this.#queued.length >= READ_AHEAD && !this.#paused) {
        this.#paused = true;
        call.pause();
      }
      void this.#drain();
    });
    call.on('end', () => {
      this.#ended = true;
      if (!this.#committing && this.#queued.length === 0 && !this.#failed && !call.destroyed) call.end();
    });
  }

  async #checkAccounts(changes: readonly CacheChange[]): Promise<void> {
    const deps = this.#deps;
    const accounts = new Set(changes.map(accountOf));
    this.#owned ??= await ownedAccounts(deps, this.#agentId);
    // An account registered after this stream opened: look again once before refusing.
    if ([...accounts].some((a) => !this.#owned?.has(a)))
      this.#owned = await ownedAccounts(deps, this.#agentId);
    const foreign = [...accounts].filter((a) => !this.#owned?.has(a));
    if (foreign.length > 0) {
      const refusal = deps.authenticator.refuse(
        this.#call,
        PUBLISH,
        `accounts not served by this agent: ${foreign.join(', ')}`,
        {
          accounts: foreign,
        },
      );
      throw new RpcFailure(refusal.code, refusal.details);
    }
  }

  /**
   * Commits the batches in one transaction, in order, and acknowledges the last (acknowledgements
   * are cumulative). Batches that queued while the previous commit ran go together: an agent with
   * several batches in flight then pays one commit and its round trips for all of them.
   */
  async #apply(batches: readonly CacheBatch__Output[]): Promise<void> {
    const deps = this.#deps;
    const changes = batches.flatMap((batch) => batch.items.map(toCacheChange));
    await this.#checkAccounts(changes);
    const started = performance.now();
    const outcome = await deps.store.cache.apply(changes, deps.now());
    deps.metrics.storeWriteSeconds.observe((performance.now() - started) / 1000);
    const committedAt = deps.now();
    for (const [account, events] of eventsByAccount(changes)) {
      deps.metrics.eventsIngested.inc({ account }, events);
      this.#rate.record(account, events, committedAt);
    }
    for (const scope of outcome.unmatchedSnapshotEnds) {
      this.#log.warn({ scope }, 'snapshot end without its begin: nothing deleted');
    }
    const last = batches.at(-1);
    if (!this.#failed && last !== undefined) this.#call.write({ sequence: last.sequence });
  }

  async #drain(): Promise<void> {
    if (this.#committing) return;
    const call = this.#call;
    this.#committing = true;
    try {
      while (this.#queued.length > 0 && !this.#failed) {
        const group = this.#queued.splice(0, GROUP_MAX);
        // Backpressure: read ahead a few batches, no more, until they are committed (HTTP/2 flow
        // control then holds the agent back too, beyond its own window of unacknowledged batches).
        if (this.#paused && this.#queued.length < READ_AHEAD) {
          this.#paused = false;
          call.resume();
        }
        try {
          await this.#apply(group);
        } catch (error) {
          this.#failed = true;
          if (error instanceof RpcFailure) {
            call.emit('error', { code: error.code, details: error.message });
            return;
          }
          this.#log.error({ err: error, sequence: group.at(-1)?.sequence }, 'cannot store cache batch');
          call.emit('error', { code: status.UNAVAILABLE, details: 'cannot store the batch; send it again' });
          return;
        }
      }
    } finally {
      this.#committing = false;
    }
    if (this.#ended && !this.#failed && !call.destroyed) call.end();
  }
}

async function publish(call: PublishCall, deps: CachingRpcDeps, rate: IngestRate): Promise<void> {
  const auth = await deps.authenticator.authenticate(call, PUBLISH);
  if (!auth.ok) {
    call.emit('error', auth.refusal);
    return;
  }
  if (call.cancelled) return;
  deps.authenticator.endOnRevocation(auth, call, PUBLISH);
  new PublishStream(call, deps, rate, auth.agentId).start();
}

/** The caching service; `rate` counts the events it stores, for the cache introspection. */
export function cachingHandlers(deps: CachingRpcDeps, rate: IngestRate): CachingHandlers {
  return {
    Publish: (call) => {
      publish(call, deps, rate).catch((error: unknown) => {
        deps.logger.error({ err: error, method: PUBLISH }, 'cannot authenticate a cache stream');
        call.emit('error', { code: status.UNAVAILABLE, details: 'cannot authenticate the agent; try again' });
      });
    },
    GetResumeVersions: (call, callback) => {
      void (async () => {
        const auth = await deps.authenticator.authenticate(call, RESUME);
        if (!auth.ok) {
          callback(auth.refusal);
          return;
        }
        const { agentId } = auth;
        const owned = await ownedAccounts(deps, agentId);
        const requested = call.request.accounts.length > 0 ? call.request.accounts : [...owned];
        const foreign = requested.filter((a) => !owned.has(a));
        if (foreign.length > 0) {
          callback(
            deps.authenticator.refuse(
              call,
              RESUME,
              `accounts not served by this agent: ${foreign.join(', ')}`,
              {
                accounts: foreign,
              },
            ),
          );
          return;
        }
        const versions = await deps.store.cache.resumeVersions(
          requested,
          Number(call.request.maxAgeMs),
          deps.now(),
        );
        callback(null, {
          versions: versions.map((v) => ({
            scope: v.scope,
            resourceVersion: v.resourceVersion,
            updatedAt: toTimestamp(v.updatedAt),
          })),
        });
      })().catch((error: unknown) => {
        deps.logger.error({ err: error, method: RESUME }, 'cannot read resume versions');
        callback({ code: status.UNAVAILABLE, details: 'cannot read resume versions; try again' });
      });
    },
  };
}
