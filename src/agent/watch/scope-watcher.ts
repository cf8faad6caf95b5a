// Keeps one watch scope (a kind in a namespace of an account) streamed to the control plane, written
// as client-go's reflector is: an explicit loop of list → watch, where
//   - a list is a streaming list where the API server serves one (a watch with
//     `sendInitialEvents=true`: the current objects as ADDED events, ended by a bookmark annotated
//     `k8s.io/initial-events-end`, after which the same watch goes on), else paginated (500 per page);
//     either way it is sent as a snapshot (begin, objects, end), so the control plane can delete what
//     the snapshot lacks, and it takes a task-budget slot until its last object;
//   - a scope whose API server refuses streaming lists (WatchList off, an aggregated API without it)
//     or ends one before its end bookmark lists by pages from then on, as client-go falls back;
//   - a watch starts from the list's (or a resumed) resourceVersion, with bookmarks and a randomized
//     5–10 minute timeout so thousands of watches do not expire together;
//   - a watch that ends normally is restarted from the last resourceVersion seen, without a list;
//   - 410 Gone (the version was compacted away) means our place in history is lost: list again;
//   - any other failure waits out an exponential backoff, then retries from the last version;
//   - every list, resume, restart and failure is told to the observer with its reason, and every
//     event and bookmark moves the scope's entry in the registry (the `/watches` view);
//   - when stopped, `finalBookmark` says how far the buffer got past the last recorded version, so a
//     graceful stop can record it and the next agent resumes there instead of replaying (or, when the
//     old version has been compacted meanwhile, relisting).
// Nothing is kept but resourceVersions: objects go straight into the coalescing buffer.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type ApiResource,
  KubeApiError,
  type KubeHttp,
  KubeTransportError,
  resourcePath,
  type WatchEvent,
  type WatchStream,
  watchObject,
} from '../../kube/index.ts';
import { backoffSleep } from '../../lib/backoff.ts';
import { CodedError } from '../../lib/coded-error.ts';
import { isRecord } from '../../lib/is-record.ts';
import { JsonScanError } from '../../lib/json-scan.ts';
import { type ObjectHead, scanObjectHead } from '../../lib/object-head.ts';
import { scrubObjectBytes } from '../../lib/object-scrub.ts';
import type { CacheItem, WatchScope } from './cache-item.ts';
import type { CoalescingBuffer } from './coalescing-buffer.ts';
import { driftInBytes } from './drift-summary.ts';
import type { TaskBudget } from './task-budget.ts';
import type { ListReason, RestartReason, WatchObserver } from './watch-observer.ts';
import type { WatchRegistry } from './watch-registry.ts';

export const LIST_PAGE_SIZE = 500;
/** How often a scope the account may not read is tried again. */
export const FORBIDDEN_RECHECK_MS = 10 * 60_000;

export interface ScopeWatcherOptions {
  http: KubeHttp;
  resource: ApiResource;
  scope: WatchScope;
  buffer: CoalescingBuffer;
  budget: TaskBudget;
  /** B: only the first list takes a budget slot; A and C: every list does. */
  budgetEveryList: boolean;
  registry: WatchRegistry;
  /** Start watching from here without listing (a resume point the control plane remembered). */
  resumeFrom?: string;
  /** `metadata.namespace!=x,...` for omitNamespaces on an all-namespaces scope. */
  fieldSelector?: string;
  /** Objects not to cache (onlyPlatformManaged); they are sent as deleted if they stop matching. */
  accept?: (object: Record<string, unknown>) => boolean;
  /** Called for every object event, e.g. to notice CRDs created at run time. */
  onEvent?: (type: string) => void;
  observer: WatchObserver;
  /**
   * The account may not list or watch this kind (RBAC): called once when that starts, with the API
   * server's message. The scope then checks again every `forbiddenRecheckMs`.
   */
  onForbidden?: (message: string) => void;
  forbiddenRecheckMs?: number;
  backoff: { initialDelayMs: number; multiplier: number; jitter: number; maxDelayMs: number };
  random?: () => number;
  /**
   * The server-side timeout of each watch, in seconds; by default 5–10 minutes from `random`, so
   * thousands of watches do not expire together. Tests pass a short one to see a watch end normally.
   */
  watchTimeoutSeconds?: () => number;
  /** Try streaming lists first (default true); false lists by pages only. */
  streamingList?: boolean;
}

class Gone extends CodedError<'GONE'> {
  constructor(message: string) {
    super('GONE', message);
  }
}

/** The API server would not serve this scope a streaming list; it is listed by pages from now on. */
class StreamingListRefused extends CodedError<'STREAMING_LIST_REFUSED'> {
  constructor(message: string) {
    super('STREAMING_LIST_REFUSED', message);
  }
}

/** The annotation on the bookmark that ends a streaming list's initial events. */
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/**
 * How an API server without streaming lists answers `sendInitialEvents`: 422 or 400 for a
 * parameter it forbids (WatchList off, or a server older than it), 405/501 from an aggregated API
 * server that does not implement it.
 */
const REFUSAL_STATUSES: ReadonlySet<number> = new Set([400, 405, 422, 501]);

/** Credentials or RBAC refused: a paginated list would be refused the same way. */
const DENIED_STATUSES: ReadonlySet<number> = new Set([401, 403]);

/**
 * A watch left open: its stream (each chunk's events together), and the events already read from it
 * that come first (those after a streaming list's end bookmark, in the chunk that held it).
 */
interface OpenWatch {
  stream: WatchStream;
  pending: WatchEvent[];
}

/** A finished list: the version to watch from, and the watch a streaming list leaves open there. */
interface Listed {
  resourceVersion: string;
  watch?: OpenWatch;
}

const metaOf = (object: Record<string, unknown>) => (isRecord(object.metadata) ? object.metadata : {});

/** Takes the stream's next events; false when the watch has ended. */
async function takeNext(
  stream: WatchStream,
  take: (events: WatchEvent[]) => Promise<void>,
): Promise<boolean> {
  const next = await stream.next();
  if (next.done === true) return false;
  await take(next.value);
  return true;
}

export class ScopeWatcher {
  readonly #o: ScopeWatcherOptions;
  /** The last version seen: where a new watch starts. */
  #resourceVersion: string | undefined;
  /** Every event up to this version is in the buffer (set after `put` returns, never before). */
  #buffered: string | undefined;
  /** The version of the last snapshot end or bookmark put in the buffer: what the control plane records. */
  #recorded: string | undefined;
  /** The cause of the last failure told to the observer, until the scope recovers. */
  #failure: string | undefined;
  /** Lists are streamed until the API server refuses it for this scope. */
  #streaming: boolean;

  constructor(options: ScopeWatcherOptions) {
    this.#o = options;
    this.#resourceVersion = options.resumeFrom;
    this.#buffered = options.resumeFrom;
    this.#recorded = options.resumeFrom;
    this.#streaming = options.streamingList ?? true;
  }

  get resourceVersion(): string | undefined {
    return this.#resourceVersion;
  }

  /**
   * A bookmark at the last version whose events are all in the buffer, when that is past the last one
   * recorded; for a graceful stop, after `run` has returned. Without it the control plane's resume
   * point stays at the last snapshot end or server bookmark (up to a minute old), and the next agent
   * replays from there, or relists when the watch cache or a compaction has dropped that version.
   */
  finalBookmark(): CacheItem | undefined {
    if (this.#buffered === undefined || this.#buffered === '' || this.#buffered === this.#recorded) return;
    return { type: 'bookmark', scope: this.#o.scope, resourceVersion: this.#buffered };
  }

  async #mark(resourceVersion: string, signal: AbortSignal) {
    await this.#o.buffer.put({ type: 'bookmark', scope: this.#o.scope, resourceVersion }, signal);
    this.#buffered = resourceVersion;
    this.#recorded = resourceVersion;
    const { account, kind, namespace } = this.#o.scope;
    this.#o.registry.bookmark(account, kind, namespace, resourceVersion);
  }

  #update(state: 'listing' | 'watching' | 'backoff' | 'forbidden' | 'stopped', lastError?: string) {
    const { account, kind, namespace } = this.#o.scope;
    this.#o.registry.update(account, kind, namespace, {
      state,
      resourceVersion: this.#resourceVersion ?? '',
      ...(lastError === undefined ? {} : { lastError }),
    });
  }

  /**
   * The cache item of an object event. The object's bytes go on as the API server wrote them, less
   * what scrubbing cuts (object-scrub.ts); only its head is read, unless `accept` needs it whole. An
   * object cloudctl deployed takes the drift its managedFields show along (drift-summary.ts).
   */
  #event(type: 'ADDED' | 'MODIFIED' | 'DELETED', bytes: Buffer, snapshotId: string): CacheItem {
    const { resource } = this.#o;
    const head = this.#head(bytes);
    const apiVersion = resource.group ? `${resource.group}/${resource.version}` : resource.version;
    const object = scrubObjectBytes(bytes, head, { apiVersion, kind: resource.kind });
    const accept = this.#o.accept;
    const accepted =
      accept === undefined || accept(JSON.parse(Buffer.from(object, 'latin1').toString('utf8')));
    const drift = type === 'DELETED' ? undefined : driftInBytes(bytes, head);
    return {
      type: 'event',
      scope: this.#o.scope,
      version: resource.version,
      namespace: head.namespace,
      name: head.name,
      resourceVersion: head.resourceVersion,
      event: accepted ? type : 'DELETED',
      object,
      snapshotId,
      ...(drift === undefined ? {} : { drift }),
    };
  }

  /** The object's head; an object that is not JSON fails the watch (it restarts), naming the scope. */
  #head(bytes: Buffer): ObjectHead {
    try {
      return scanObjectHead(bytes, true);
    } catch (error) {
      if (!(error instanceof JsonScanError)) throw error;
      throw new KubeApiError(
        500,
        'WATCH',
        this.#o.resource.resource,
        `an event's object is not JSON: ${error.message}`,
      );
    }
  }

  #timeoutSeconds(): number {
    return this.#o.watchTimeoutSeconds?.() ?? Math.floor(300 + (this.#o.random ?? Math.random)() * 300);
  }

  /** A streaming list where the API server serves one, else a paginated one. */
  async #list(reason: ListReason, signal: AbortSignal): Promise<Listed> {
    this.#update('listing');
    const started = performance.now();
    let listed: Listed & { objects: number };
    if (this.#streaming) {
      try {
        listed = await this.#streamList(signal);
      } catch (error) {
        // A server out of reach would not answer a list either, and refused credentials or RBAC
        // refuse one alike: the run loop reports those as the watch's, once.
        if (
          signal.aborted ||
          error instanceof KubeTransportError ||
          (error instanceof KubeApiError && DENIED_STATUSES.has(error.status))
        )
          throw error;
        if (error instanceof StreamingListRefused) {
          this.#streaming = false;
          this.#o.observer.streamingListRefused(this.#o.scope, error.message);
        } else {
          // Any other failure (the watch cache behind the current version: "Too large resource
          // version", a timeout, a cut stream) lists by pages this once, as client-go's reflector
          // does: a busy API server answered thousands of streaming lists that way for minutes, and
          // retrying each after a backoff kept those scopes unlisted. A paginated list fails on its
          // own where the server cannot be listed at all.
          this.#o.observer.streamingListFailed(this.#o.scope, error);
        }
        listed = await this.#pagedList(signal);
      }
    } else listed = await this.#pagedList(signal);
    this.#buffered = listed.resourceVersion;
    this.#recorded = listed.resourceVersion;
    this.#failure = undefined;
    this.#o.observer.listed(
      this.#o.scope,
      reason,
      listed.objects,
      (performance.now() - started) / 1000,
      listed.watch === undefined ? 'pages' : 'stream',
    );
    return listed;
  }

  /**
   * A watch with `sendInitialEvents`: its ADDED events up to the end bookmark are the snapshot;
   * returns the watch, open after that bookmark. The version is left to the server (not older than
   * a consistent read), as client-go asks for a list it has no version for.
   */
  async #streamList(signal: AbortSignal): Promise<Listed & { objects: number }> {
    const { http, resource, scope, buffer } = this.#o;
    const snapshotId = randomUUID();
    const watch = http.watch(
      resourcePath(resource, scope.namespace || undefined),
      {
        sendInitialEvents: true,
        resourceVersionMatch: 'NotOlderThan',
        allowWatchBookmarks: true,
        timeoutSeconds: this.#timeoutSeconds(),
        fieldSelector: this.#o.fieldSelector,
      },
      signal,
    );
    let objects = 0;
    // Begun at the first answer, so that a refused request leaves nothing for the paginated list.
    let begun = false;
    const begin = async () => {
      if (!begun) await buffer.put({ type: 'snapshotBegin', scope, snapshotId }, signal);
      begun = true;
    };
    try {
      for (;;) {
        let next: IteratorResult<WatchEvent[]>;
        try {
          next = await watch.next();
        } catch (error) {
          if (objects === 0 && error instanceof KubeApiError && REFUSAL_STATUSES.has(error.status))
            throw new StreamingListRefused(error.message);
          throw error;
        }
        // A server that ignored the request's parameters would never send the end bookmark.
        if (next.done === true)
          throw new StreamingListRefused('the watch ended before the initial events were complete');
        const events = next.value;
        for (let i = 0; i < events.length; i++) {
          const event = events[i] as WatchEvent;
          if (event.type === 'ERROR') throw this.#watchError(event);
          if (event.type === 'BOOKMARK') {
            const meta = metaOf(watchObject(event));
            const annotations = isRecord(meta.annotations) ? meta.annotations : {};
            if (annotations[INITIAL_EVENTS_END] !== 'true') continue;
            const resourceVersion = String(meta.resourceVersion ?? '');
            await begin();
            await buffer.put({ type: 'snapshotEnd', scope, snapshotId, resourceVersion }, signal);
            // The events after the bookmark in its chunk are the watch's first.
            return { resourceVersion, watch: { stream: watch, pending: events.slice(i + 1) }, objects };
          }
          if (!begun) await begin();
          const item = this.#event(event.type, event.bytes, snapshotId);
          if (signal.aborted || !buffer.tryPut(item)) await buffer.put(item, signal);
          objects++;
        }
      }
    } catch (error) {
      await watch.return();
      throw error;
    }
  }

  /** A paginated list sent as a snapshot. */
  async #pagedList(signal: AbortSignal): Promise<Listed & { objects: number }> {
    const { http, resource, scope, buffer } = this.#o;
    const path = resourcePath(resource, scope.namespace || undefined);
    const snapshotId = randomUUID();
    await buffer.put({ type: 'snapshotBegin', scope, snapshotId }, signal);
    let next: string | undefined;
    let listVersion = '';
    let objects = 0;
    do {
      const page = await http.request({
        verb: 'list',
        method: 'GET',
        path,
        query: { limit: LIST_PAGE_SIZE, continue: next, fieldSelector: this.#o.fieldSelector },
        signal,
      });
      const body = isRecord(page.body) ? page.body : {};
      const meta = metaOf(body);
      listVersion = String(meta.resourceVersion ?? listVersion);
      next = typeof meta.continue === 'string' && meta.continue !== '' ? meta.continue : undefined;
      // Paginated lists are the fallback for servers without streaming lists: their items are parsed
      // with the page, and serialized again to take the watch path's form.
      for (const item of Array.isArray(body.items) ? body.items.filter(isRecord) : []) {
        await buffer.put(this.#event('ADDED', Buffer.from(JSON.stringify(item)), snapshotId), signal);
        objects++;
      }
    } while (next !== undefined);
    await buffer.put({ type: 'snapshotEnd', scope, snapshotId, resourceVersion: listVersion }, signal);
    return { resourceVersion: listVersion, objects };
  }

  #watchError(event: WatchEvent): Error {
    const status = watchObject(event);
    if (status.code === 410) return new Gone(String(status.message ?? 'resourceVersion too old'));
    return new KubeApiError(Number(status.code ?? 500), 'WATCH', this.#o.resource.resource, status);
  }

  /**
   * Watches until the server ends the watch; throws Gone when the version is too old. `open` is the
   * watch a streaming list left open at the list's version; without it a watch is opened there.
   */
  async #watch(signal: AbortSignal, open?: OpenWatch): Promise<void> {
    const { http, resource, scope, buffer } = this.#o;
    this.#update('watching');
    const stream =
      open?.stream ??
      http.watch(
        resourcePath(resource, scope.namespace || undefined),
        {
          resourceVersion: this.#resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: this.#timeoutSeconds(),
          fieldSelector: this.#o.fieldSelector,
        },
        signal,
      );
    const { account, kind, namespace } = scope;
    let count = 0;
    const take = async (events: WatchEvent[]) => {
      // The watch is open and answering: a later failure is news again.
      if (events.length > 0) this.#failure = undefined;
      for (const event of events) {
        if (event.type === 'ERROR') throw this.#watchError(event);
        if (event.type === 'BOOKMARK') {
          const rv = metaOf(watchObject(event)).resourceVersion;
          if (typeof rv === 'string') this.#resourceVersion = rv;
          await this.#mark(this.#resourceVersion ?? '', signal);
          continue;
        }
        this.#o.onEvent?.(event.type);
        const item = this.#event(event.type, event.bytes, '');
        const rv = item.type === 'event' ? item.resourceVersion : '';
        if (rv !== '') this.#resourceVersion = rv;
        if (signal.aborted || !buffer.tryPut(item)) await buffer.put(item, signal);
        if (rv !== '') this.#buffered = rv;
        this.#o.registry.event(account, kind, namespace, rv);
        count++;
      }
    };
    try {
      // Taken out of the list's result, which its callers' frames hold for as long as this watch runs.
      await take(open?.pending.splice(0) ?? []);
      // Each chunk's events are taken in a call that returns, not a `for await` whose variable would
      // hold the last chunk's events (and the chunk) while the watch waits, quiet, for the next.
      while (await takeNext(stream, take));
    } finally {
      await stream.return();
    }
    // A normal end of the watch: remember where we are, so a resume starts here.
    if (count > 0 && this.#resourceVersion !== undefined) await this.#mark(this.#resourceVersion, signal);
  }

  async run(signal: AbortSignal): Promise<void> {
    const { backoff: settings, budget, scope, observer } = this.#o;
    // Why the next list is needed; undefined while the watch can go on from the last version.
    let listReason: ListReason | undefined = this.#resourceVersion === undefined ? 'start' : undefined;
    // Why the previous watch ended; undefined until a watch has been opened once.
    let restartReason: RestartReason | undefined;
    let listed = false;
    let forbidden = false;
    const backoff = backoffSleep(settings);
    if (listReason === undefined) observer.resumed(scope, this.#resourceVersion ?? '');
    try {
      while (!signal.aborted) {
        let stage: 'list' | 'watch' = 'list';
        try {
          let open: OpenWatch | undefined;
          if (listReason !== undefined) {
            const list = () => this.#list(listReason ?? 'start', signal);
            const result =
              !listed || this.#o.budgetEveryList
                ? await budget.run(scope.account, list, signal)
                : await list();
            this.#resourceVersion = result.resourceVersion;
            open = result.watch;
            listed = true;
            listReason = undefined;
          }
          forbidden = false;
          stage = 'watch';
          // After a streaming list the watch opened by the list goes on: it is the one (re)opened.
          if (restartReason !== undefined) observer.restarted(scope, restartReason);
          restartReason = 'closed';
          await this.#watch(signal, open);
          backoff.reset();
        } catch (error) {
          if (signal.aborted) break;
          // A failed list keeps the reason it was needed for; a failed watch is restarted.
          if (stage === 'watch') restartReason = 'error';
          if (error instanceof KubeApiError && error.status === 403) {
            // Least-privilege RBAC is normal: say so once, and look again now and then (RBAC can be
            // granted later) instead of hammering the API server with refused requests.
            this.#update('forbidden', error.message);
            if (!forbidden) this.#o.onForbidden?.(error.message);
            forbidden = true;
            listReason ??= 'error';
            await sleep(this.#o.forbiddenRecheckMs ?? FORBIDDEN_RECHECK_MS, undefined, { signal }).catch(
              () => undefined,
            );
            continue;
          }
          if (error instanceof Gone || (error instanceof KubeApiError && error.status === 410)) {
            // Our place in history is gone: start over from a fresh list, at once.
            listReason = '410';
            if (stage === 'watch') restartReason = '410';
            continue;
          }
          const message = error instanceof Error ? error.message : String(error);
          this.#update('backoff', message);
          // One outage, one WARN: its first failure; later ones (even with another cause, as a
          // restarting API server answers 'shutting down' and then refuses) until it recovers at DEBUG.
          observer.failed(scope, stage, error, this.#failure !== undefined);
          this.#failure = message;
          await backoff.wait(signal);
        }
      }
    } finally {
      this.#update('stopped');
    }
  }
}
