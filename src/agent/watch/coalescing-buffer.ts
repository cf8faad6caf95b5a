// The only place watched objects wait in the agent: a bounded, ordered buffer between the watches and
// the control plane. Events for the same object coalesce (the latest state wins); snapshot markers and
// bookmarks are barriers that keep their order relative to events. When it holds `capacity` items,
// producers wait: the watch stops reading, and TCP pushes back on the API server.
import { untilWokenOrAborted } from '../../lib/signalled-wait.ts';
import { type CacheItem, scopeKey } from './cache-item.ts';

type Segment = { kind: 'events'; items: Map<string, CacheItem> } | { kind: 'marker'; item: CacheItem };

export class CoalescingBuffer {
  readonly #capacity: number;
  readonly #segments: Segment[] = [];
  #size = 0;
  #spaceWaiters: Array<() => void> = [];
  #dataWaiters: Array<() => void> = [];

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#size;
  }

  /** Adds an item, waiting while the buffer is full. */
  async put(item: CacheItem, signal?: AbortSignal): Promise<void> {
    while (this.#size >= this.#capacity) {
      signal?.throwIfAborted();
      await untilWokenOrAborted((wake) => this.#spaceWaiters.push(wake), signal);
    }
    signal?.throwIfAborted();
    if (item.type === 'event') {
      const last = this.#segments.at(-1);
      const segment =
        last?.kind === 'events' ? last : { kind: 'events' as const, items: new Map<string, CacheItem>() };
      if (segment !== last) this.#segments.push(segment);
      const key = `${scopeKey(item.scope)}\u0000${item.namespace}\u0000${item.name}`;
      // Re-inserting moves the object to the end, so its latest state is sent after older neighbours.
      if (segment.items.delete(key)) this.#size--;
      segment.items.set(key, item);
    } else {
      this.#segments.push({ kind: 'marker', item });
    }
    this.#size++;
    for (const wake of this.#dataWaiters.splice(0)) wake();
  }

  /** Takes up to `max` items in order, waiting until there is at least one. */
  async take(max: number, signal?: AbortSignal): Promise<CacheItem[]> {
    await this.waitForItems(signal);
    return this.takeNow(max);
  }

  /** Resolves once the buffer holds an item. */
  async waitForItems(signal?: AbortSignal): Promise<void> {
    while (this.#size === 0) {
      signal?.throwIfAborted();
      await untilWokenOrAborted((wake) => this.#dataWaiters.push(wake), signal);
    }
    signal?.throwIfAborted();
  }

  /** Takes up to `max` items in order, at once: none when the buffer is empty. */
  takeNow(max: number): CacheItem[] {
    const out: CacheItem[] = [];
    while (out.length < max && this.#segments.length > 0) {
      const first = this.#segments[0];
      if (first === undefined) break;
      if (first.kind === 'marker') {
        out.push(first.item);
        this.#segments.shift();
        continue;
      }
      for (const [key, item] of first.items) {
        if (out.length >= max) break;
        out.push(item);
        first.items.delete(key);
      }
      if (first.items.size === 0) this.#segments.shift();
    }
    this.#size -= out.length;
    for (const wake of this.#spaceWaiters.splice(0)) wake();
    return out;
  }

  /** Drops everything buffered (none of it acknowledged); returns how many items that was. */
  clear(): number {
    const dropped = this.#size;
    this.#segments.length = 0;
    this.#size = 0;
    for (const wake of this.#spaceWaiters.splice(0)) wake();
    return dropped;
  }
}
