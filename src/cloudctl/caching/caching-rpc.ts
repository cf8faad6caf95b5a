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

function publish(
  call: ServerDuplexStream<CacheBatch__Output, CacheAck>,
  deps: CachingRpcDeps,
  rate: IngestRate,
): void {
  const auth = deps.authenticator.authenticate(call, PUBLISH);
  if (!auth.ok) {
    call.emit('error', auth.refusal);
    return;
  }
  const { agentId } = auth;
  const log = deps.logger.child({ agentId, peer: call.getPeer(), method: PUBLISH });
  let owned: Set<string> | undefined;
  let failed = false;
  let ended = false;
  let committing = false;
  let paused = false;
  const queued: CacheBatch__Output[] = [];

  const checkAccounts = async (changes: readonly CacheChange[]) => {
    const accounts = new Set(changes.map(accountOf));
    owned ??= await ownedAccounts(deps, agentId);
    // An account registered after this stream opened: look again once before refusing.
    if ([...accounts].some((a) => !owned?.has(a))) owned = await ownedAccounts(deps, agentId);
    const foreign = [...accounts].filter((a) => !owned?.has(a));
    if (foreign.length > 0) {
      const refusal = deps.authenticator.refuse(
        call,
        PUBLISH,
        `accounts not served by this agent: ${foreign.join(', ')}`,
        {
          accounts: foreign,
        },
      );
      throw new RpcFailure(refusal.code, refusal.details);
    }
  };

  /**
   * Commits the batches in one transaction, in order, and acknowledges the last (acknowledgements
   * are cumulative). Batches that queued while the previous commit ran go together: an agent with
   * several batches in flight then pays one commit and its round trips for all of them.
   */
  const apply = async (batches: readonly CacheBatch__Output[]) => {
    const changes = batches.flatMap((batch) => batch.items.map(toCacheChange));
    await checkAccounts(changes);
    const started = performance.now();
    const outcome = await deps.store.cache.apply(changes, deps.now());
    deps.metrics.storeWriteSeconds.observe((performance.now() - started) / 1000);
    const committedAt = deps.now();
    for (const [account, events] of eventsByAccount(changes)) {
      deps.metrics.eventsIngested.inc({ account }, events);
      rate.record(account, events, committedAt);
    }
    for (const scope of outcome.unmatchedSnapshotEnds) {
      log.warn({ scope }, 'snapshot end without its begin: nothing deleted');
    }
    const last = batches.at(-1);
    if (!failed && last !== undefined) call.write({ sequence: last.sequence });
  };

  const drain = async () => {
    if (committing) return;
    committing = true;
    try {
      while (queued.length > 0 && !failed) {
        const group = queued.splice(0, GROUP_MAX);
        // Backpressure: read ahead a few batches, no more, until they are committed (HTTP/2 flow
        // control then holds the agent back too, beyond its own window of unacknowledged batches).
        if (paused && queued.length < READ_AHEAD) {
          paused = false;
          call.resume();
        }
        try {
          await apply(group);
        } catch (error) {
          failed = true;
          if (error instanceof RpcFailure) {
            call.emit('error', { code: error.code, details: error.message });
            return;
          }
          log.error({ err: error, sequence: group.at(-1)?.sequence }, 'cannot store cache batch');
          call.emit('error', { code: status.UNAVAILABLE, details: 'cannot store the batch; send it again' });
          return;
        }
      }
    } finally {
      committing = false;
    }
    if (ended && !failed && !call.destroyed) call.end();
  };

  call.on('data', (batch: CacheBatch__Output) => {
    if (failed) return;
    queued.push(batch);
    if (queued.length >= READ_AHEAD && !paused) {
      paused = true;
      call.pause();
    }
    void drain();
  });
  call.on('end', () => {
    ended = true;
    if (!committing && queued.length === 0 && !failed && !call.destroyed) call.end();
  });
}

/** The caching service; `rate` counts the events it stores, for the cache introspection. */
export function cachingHandlers(deps: CachingRpcDeps, rate: IngestRate): CachingHandlers {
  return {
    Publish: (call) => publish(call, deps, rate),
    GetResumeVersions: (call, callback) => {
      const auth = deps.authenticator.authenticate(call, RESUME);
      if (!auth.ok) {
        callback(auth.refusal);
        return;
      }
      const { agentId } = auth;
      void (async () => {
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
        deps.logger.error({ err: error, agentId, method: RESUME }, 'cannot read resume versions');
        callback({ code: status.UNAVAILABLE, details: 'cannot read resume versions; try again' });
      });
    },
  };
}
