// Runs the watches of every account and the one uplink that drains the coalescing buffer to the
// control plane. Accounts start in groups (`cacheGroupSize`, `cacheGroupDelayMs`, B), each resuming
// from the versions the control plane remembers (not older than `maxResumableResourceAgeMs`). A batch
// the control plane did not acknowledge is sent again, never dropped. A stop records where each watch
// got to (a final bookmark) and gives the uplink `STOP_FLUSH_MS` to deliver what is buffered.
// What an account watches is asked when it starts (`watchFilter`: the control plane's cache directive
// may narrow its kinds or leave it to operations only); a start and a stop of the same account never
// overlap, so a directive switched back and forth leaves one watcher or none, never two.
import { setTimeout as sleep } from 'node:timers/promises';
import { backoffSleep } from '../../lib/backoff.ts';
import type { AccountCluster } from '../accounts/index.ts';
import { type AgentConfig, watchRestartBackoff, watchStartGroups } from '../config/index.ts';
import { AccountWatcher } from './account-watcher.ts';
import { type CacheItem, type CacheSink, scopeKey, type WatchScope } from './cache-item.ts';
import { CoalescingBuffer } from './coalescing-buffer.ts';
import { TaskBudget } from './task-budget.ts';
import type { WatchObserver } from './watch-observer.ts';
import type { WatchRegistry } from './watch-registry.ts';

export const BATCH_SIZE = 500;
/**
 * A batch also stops at 2 MiB of object JSON in UTF-8 (its first object always goes): 500 large
 * objects (ConfigMaps reach 1 MiB) would otherwise make a message of hundreds of MiB, past gRPC's
 * 4 MiB that cloudctl accepts, refused and sent again forever. 2 MiB plus one object (etcd stores
 * at most ~1.5 MiB) stays under it.
 */
export const BATCH_MAX_BYTES = 2 * 1024 * 1024;
export const BUFFER_CAPACITY = 5000;
/** The buffer holds at most this much object JSON, so large objects cannot make it the agent's peak. */
export const BUFFER_MAX_BYTES = 16 * 1024 * 1024;
/** Batches sent and not yet acknowledged, at most. */
export const UPLINK_WINDOW = 3;

/** A batch sent up; `result` settles when it is acknowledged (undefined) or has failed. */
interface InFlight {
  batch: CacheItem[];
  sent: number;
  result: Promise<{ error: unknown } | undefined>;
}
/** How long a stop waits for buffered items to reach the control plane (the rest are replayed later). */
export const STOP_FLUSH_MS = 2000;
/** Between attempts to publish a batch the control plane did not take. */
const PUBLISH_RETRY_BACKOFF = { initialDelayMs: 500, multiplier: 2, jitter: 0, maxDelayMs: 30_000 };

export interface WatchManagerDeps {
  config: AgentConfig;
  sink: CacheSink;
  registry: WatchRegistry;
  clusterFor: (account: string) => AccountCluster | undefined;
  onSent?: (account: string, events: number, bytes: number) => void;
  observer: WatchObserver;
  onQueueDepth?: (depth: number) => void;
  onError?: (context: string, error: unknown) => void;
  onForbidden?: (scope: WatchScope, message: string) => void;
  /**
   * The kinds filters to watch an account with, or undefined for no watches at all (operations
   * only); by default the account's own `kinds` and `omitKinds`.
   */
  watchFilter?: (account: string) => WatchFilter | undefined;
}

export interface WatchFilter {
  kinds: string[];
  omitKinds: string[];
}

export class WatchManager {
  readonly #deps: WatchManagerDeps;
  readonly buffer = new CoalescingBuffer(BUFFER_CAPACITY, BUFFER_MAX_BYTES);
  readonly budget: TaskBudget;
  readonly #accounts = new Map<string, AccountWatcher>();
  /** Starts under way, by account: a second start joins the first, a stop waits for it. */
  readonly #starting = new Map<string, Promise<void>>();
  readonly #stop = new AbortController();
  /** Stops the uplink: after the watches, once the buffer is delivered or the flush time is out. */
  readonly #stopUplink = new AbortController();
  #uplink: Promise<void> | undefined;
  #publishing = false;

  constructor(deps: WatchManagerDeps) {
    this.#deps = deps;
    this.budget = new TaskBudget(deps.config.tasks, deps.onQueueDepth);
  }

  /** True when every started account has synced once. */
  synced(): boolean {
    return [...this.#accounts.values()].every((a) => a.synced);
  }

  accountSynced(name: string): boolean {
    return this.#accounts.get(name)?.synced ?? false;
  }

  start(accounts: string[]): Promise<void> {
    this.#uplink ??= this.#runUplink();
    const { config } = this.#deps;
    const groups = watchStartGroups(config);
    const groupSize = groups.size > 0 ? groups.size : accounts.length;
    const delay = groups.delayMs;
    return (async () => {
      for (let i = 0; i < accounts.length; i += Math.max(1, groupSize)) {
        if (i > 0 && delay > 0) await sleep(delay, undefined, { signal: this.#stop.signal });
        await Promise.all(accounts.slice(i, i + groupSize).map((name) => this.startAccount(name)));
      }
    })();
  }

  /** Starts the account's watches unless they run, or its filter says not to watch it. */
  startAccount(name: string): Promise<void> {
    const pending = this.#starting.get(name);
    if (pending !== undefined) return pending;
    const started = this.#startAccount(name).finally(() => this.#starting.delete(name));
    this.#starting.set(name, started);
    return started;
  }

  async #startAccount(name: string): Promise<void> {
    this.#uplink ??= this.#runUplink();
    const found = this.#deps.clusterFor(name);
    if (found === undefined || this.#accounts.has(name) || this.#stop.signal.aborted) return;
    const filter = this.#deps.watchFilter
      ? this.#deps.watchFilter(name)
      : { kinds: found.account.kinds, omitKinds: found.account.omitKinds };
    if (filter === undefined) return;
    const cluster = { ...found, account: { ...found.account, ...filter } };
    const resume = await this.#deps.sink
      .resumeVersions([name], cluster.account.maxResumableResourceAgeMs, this.#stop.signal)
      .catch((error: unknown) => {
        // Without resume points every scope lists: slower, never wrong.
        this.#deps.onError?.(`resume versions of ${name}`, error);
        return new Map();
      });
    // Stopped meanwhile: the manager's stop has already stopped every watcher it knew of.
    if (this.#stop.signal.aborted) return;
    const backoff = watchRestartBackoff(this.#deps.config);
    const watcher = new AccountWatcher({
      cluster,
      buffer: this.buffer,
      budget: this.budget,
      registry: this.#deps.registry,
      resume,
      backoff,
      observer: this.#deps.observer,
      onError: (scope: WatchScope, error) =>
        this.#deps.onError?.(`discovering the kinds of ${scope.account}`, error),
      ...(this.#deps.onForbidden === undefined ? {} : { onForbidden: this.#deps.onForbidden }),
    });
    this.#accounts.set(name, watcher);
    await watcher.start();
  }

  /** Accounts whose watches run (or are starting). */
  watchedAccounts(): string[] {
    return [...new Set([...this.#accounts.keys(), ...this.#starting.keys()])];
  }

  async stopAccount(name: string): Promise<void> {
    await this.#starting.get(name)?.catch(() => undefined);
    const watcher = this.#accounts.get(name);
    this.#accounts.delete(name);
    await watcher?.stop();
  }

  /**
   * Sends batches up with up to UPLINK_WINDOW unacknowledged at once, so the next batches travel and
   * decode while cloudctl commits one (and it commits those that queued together). Acknowledgements
   * come in order. A failure fails the stream and every batch in flight with it: once all have
   * settled, they are sent again in their order after a backoff, so a snapshot end never overtakes
   * its begin (a batch that was stored before the break is stored again: applying is idempotent).
   */
  async #runUplink(): Promise<void> {
    const signal = this.#stopUplink.signal;
    const { observer } = this.#deps;
    const window: InFlight[] = [];
    const send = (batch: CacheItem[]) =>
      this.#deps.sink.publish(batch, signal).then(
        () => undefined,
        (error: unknown) => ({ error }),
      );
    // A failed publish waits 0.5 s, doubling to 30 s; an acknowledged one starts over.
    const retry = backoffSleep(PUBLISH_RETRY_BACKOFF);
    let retrying = false;
    while (!signal.aborted) {
      if (window.length === 0) {
        try {
          await this.buffer.waitForItems(signal);
        } catch {
          break;
        }
      }
      // Taken and flagged in one step, so a stop never sees an empty buffer and an idle uplink
      // while a batch is between the two.
      while (window.length < UPLINK_WINDOW && this.buffer.size > 0) {
        // Beside a batch in flight only a full one goes: sent as soon as there is anything, batches
        // of a few items would each pay a commit, and the sync would be slower than with one in flight.
        if (window.length > 0 && this.buffer.size < BATCH_SIZE && this.buffer.bytes < BATCH_MAX_BYTES) break;
        const batch = this.buffer.takeNow(BATCH_SIZE, BATCH_MAX_BYTES);
        window.push({ batch, sent: performance.now(), result: send(batch) });
      }
      this.#publishing = window.length > 0;
      // In flight from here until acknowledged, retries included: a batch waiting for the control
      // plane to come back is one the agent still owes it.
      observer.inFlight(window.length);
      const first = window[0];
      if (first === undefined) continue;
      const failure = await first.result;
      if (signal.aborted) break;
      if (failure === undefined) {
        window.shift();
        retry.reset();
        retrying = false;
        observer.acknowledged((performance.now() - first.sent) / 1000);
        this.#count(first.batch);
        this.#delivered(first.batch);
      } else {
        await Promise.all(window.map((entry) => entry.result));
        if (signal.aborted) break;
        observer.publishFailed(failure.error, retrying);
        await retry.wait(signal);
        retrying = true;
        if (signal.aborted) break;
        for (const entry of window) entry.result = send(entry.batch);
      }
      this.#publishing = window.length > 0;
      if (window.length === 0) observer.inFlight(0);
    }
    observer.inFlight(0);
    this.#publishing = false;
  }

  /** Snapshot ends the control plane has acknowledged mark their scopes synced (readiness). */
  #delivered(batch: CacheItem[]) {
    for (const item of batch) {
      if (item.type === 'snapshotEnd')
        this.#accounts.get(item.scope.account)?.snapshotDelivered(scopeKey(item.scope));
    }
  }

  #count(batch: CacheItem[]) {
    const perAccount = new Map<string, { events: number; bytes: number }>();
    for (const item of batch) {
      if (item.type !== 'event') continue;
      const entry = perAccount.get(item.scope.account) ?? { events: 0, bytes: 0 };
      entry.events++;
      entry.bytes += item.object.length;
      perAccount.set(item.scope.account, entry);
    }
    for (const [account, { events, bytes }] of perAccount) this.#deps.onSent?.(account, events, bytes);
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await Promise.all([...this.#starting.values()].map((p) => p.catch(() => undefined)));
    const flush = AbortSignal.timeout(STOP_FLUSH_MS);
    await Promise.all([...this.#accounts.values()].map((a) => a.stop(flush)));
    this.#accounts.clear();
    while (this.#uplink !== undefined && !flush.aborted && (this.buffer.size > 0 || this.#publishing)) {
      await sleep(10);
    }
    this.#stopUplink.abort();
    await this.#uplink;
    this.#deps.sink.close();
  }
}
