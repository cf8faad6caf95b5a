// Gives back the memory V8 keeps after a busy spell. Loading the modules at start and reading list
// pages in a sync grow V8's young generation to its cap (--max-semi-space-size, 16 MiB per
// semi-space: ~20–30 MiB resident), and V8 shrinks it only in a collection that aims to reduce
// memory, which a process allocating as slowly as an idle agent does not reach for hours. So each
// time the agent has just become synced (every account it caches has sent its snapshot), it asks V8
// for that collection once: the low-memory notification, through the `gc` function that
// --expose-gc (AGENT_NODE_FLAGS) provides. Without that flag (tests, tools) nothing is released.

export interface IdleMemoryReleaseDeps {
  /** True while every account the agent caches has synced (the `initial-sync` readiness check). */
  synced: () => boolean;
  /** `globalThis.gc` under --expose-gc. */
  gc: NodeJS.GCFunction | undefined;
  /** Resident set size now, in bytes. */
  rss: () => number;
  now: () => number;
  onReleased: (figures: { pauseMs: number; rssBeforeBytes: number; rssAfterBytes: number }) => void;
}

export class IdleMemoryRelease {
  readonly #deps: IdleMemoryReleaseDeps;
  #wasSynced = false;

  constructor(deps: IdleMemoryReleaseDeps) {
    this.#deps = deps;
  }

  /** Releases memory if the agent has become synced since the last call; true when it did. */
  check(): boolean {
    const synced = this.#deps.synced();
    const becameSynced = synced && !this.#wasSynced;
    this.#wasSynced = synced;
    const { gc } = this.#deps;
    if (!becameSynced || gc === undefined) return false;
    const rssBeforeBytes = this.#deps.rss();
    const started = this.#deps.now();
    // 'last-resort' is V8's low-memory notification: full collections that also shrink the young
    // generation and release unused pages. A few tens of milliseconds, once per sync.
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    this.#deps.onReleased({
      pauseMs: this.#deps.now() - started,
      rssBeforeBytes,
      rssAfterBytes: this.#deps.rss(),
    });
    return true;
  }

  /** Calls `check` every `everyMs` until the returned function is called; the timer keeps no one alive. */
  start(everyMs: number): () => void {
    const timer = setInterval(() => this.check(), everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}

/** How often the agent looks whether it has just become synced. */
export const IDLE_MEMORY_CHECK_MS = 2_000;

const mib = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

/** The release as the agent runs it: this process's gc and memory, each release logged. Returns stop. */
export function startIdleMemoryRelease(deps: {
  synced: () => boolean;
  log: { info(fields: object, message: string): void };
}): () => void {
  return new IdleMemoryRelease({
    synced: deps.synced,
    gc: globalThis.gc,
    rss: () => process.memoryUsage.rss(),
    now: () => performance.now(),
    onReleased: ({ pauseMs, rssBeforeBytes, rssAfterBytes }) =>
      deps.log.info(
        { pauseMs: Math.round(pauseMs), rssBeforeMiB: mib(rssBeforeBytes), rssAfterMiB: mib(rssAfterBytes) },
        'synced: released the memory the start-up and sync left behind',
      ),
  }).start(IDLE_MEMORY_CHECK_MS);
}
