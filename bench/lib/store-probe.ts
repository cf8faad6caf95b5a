// Sees what cloudctl commits, as it commits it: the benchmarks run cloudctl in their own process and
// wrap its cache store, so "stored" means committed to the database, without polling the database
// (a count over 50k rows every few milliseconds would slow the very store it measures).
import type { CacheChange, CacheStore } from '../../src/cloudctl/caching/index.ts';
import { wallClockMs } from './update-load.ts';

export type CommitObserver = (changes: readonly CacheChange[], committedAtMs: number) => void;

/** Calls `observer` after each committed `apply`, with the wall-clock time (ms since the epoch). */
export function observeCommits(cache: CacheStore, observer: CommitObserver): void {
  const apply = cache.apply.bind(cache);
  cache.apply = async (changes, now) => {
    const outcome = await apply(changes, now);
    observer(changes, wallClockMs());
    return outcome;
  };
}

/**
 * How long cloudctl's store has spent committing (the sum of its `apply` calls, in seconds) and in
 * how many calls: with one batch in flight, the rest of a sync's time is spent elsewhere (the
 * agent reading and encoding, the transport).
 */
export function storeBusy(cache: CacheStore): () => { seconds: number; commits: number } {
  const apply = cache.apply.bind(cache);
  let seconds = 0;
  let commits = 0;
  cache.apply = async (changes, now) => {
    const started = performance.now();
    try {
      return await apply(changes, now);
    } finally {
      seconds += (performance.now() - started) / 1000;
      commits++;
    }
  };
  return () => ({ seconds, commits });
}

/** The number of distinct objects stored so far (a fresh store, where nothing else deletes). */
export function storedObjects(cache: CacheStore): () => number {
  const keys = new Set<string>();
  observeCommits(cache, (changes) => {
    for (const change of changes) {
      if (change.type !== 'upsert' && change.type !== 'delete') continue;
      const key = `${change.account}/${change.group}/${change.kind}/${change.namespace}/${change.name}`;
      if (change.type === 'upsert') keys.add(key);
      else keys.delete(key);
    }
  });
  return () => keys.size;
}
