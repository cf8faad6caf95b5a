// What the watches tell the rest of the agent about their health: lists and why they happened,
// resumes, watch restarts, failures and the uplink's batches. The watches only report; what becomes
// a metric or a log line is decided by the observer (src/agent/observability/watch-observer.ts).
import type { WatchScope } from './cache-item.ts';

/**
 * Why a scope lists: `start` is its first list (nothing to resume from), `410` means its place in
 * history was compacted away, `error` means the previous list or watch failed in a way a plain
 * retry from the last version cannot mend (a failed list, or a refusal to list).
 */
export type ListReason = 'start' | '410' | 'error';

/** How a list was read: a streaming list (`sendInitialEvents`) or pages of 500. */
export type ListMethod = 'stream' | 'pages';

/** Why a watch was opened again: the server `closed` it (its timeout), it failed, or it got 410. */
export type RestartReason = 'closed' | 'error' | '410';

export interface WatchObserver {
  /**
   * A list was sent as a snapshot of `objects` objects, taking `seconds`: streamed (a watch with
   * initial events) or read by pages.
   */
  listed(scope: WatchScope, reason: ListReason, objects: number, seconds: number, method: ListMethod): void;
  /** The API server would not stream this scope's list (`cause`); it is listed by pages from now on. */
  streamingListRefused(scope: WatchScope, cause: string): void;
  /**
   * A streaming list failed (such as the watch cache not yet at the current version); this list is
   * read by pages instead, and the next one streams again.
   */
  streamingListFailed(scope: WatchScope, error: unknown): void;
  /** A scope started watching from the control plane's resume point, without a list. */
  resumed(scope: WatchScope, resourceVersion: string): void;
  /** A watch is opened again after the previous one ended. */
  restarted(scope: WatchScope, reason: RestartReason): void;
  /**
   * A list or watch failed and will be retried after a backoff. `repeated` is true while the scope
   * has not recovered since an earlier failure, whatever that failure's cause.
   */
  failed(scope: WatchScope, stage: 'list' | 'watch', error: unknown, repeated: boolean): void;
  /** The uplink holds `batches` batches taken from the buffer and not yet acknowledged. */
  inFlight(batches: number): void;
  /** The control plane acknowledged a batch `seconds` after it was first sent. */
  acknowledged(seconds: number): void;
  /** Sending a batch failed; it is sent again. `repeated`: not the first failure of this batch. */
  publishFailed(error: unknown, repeated: boolean): void;
}
