// The only place watched objects wait in the agent: a bounded, ordered buffer between the watches and
// the control plane. Events for the same object coalesce (the latest state wins); snapshot markers and
// bookmarks are barriers that keep their order relative to events. When it holds `capacity` items,
// or `maxBytes` of object JSON (objects go up to ~1.5 MiB, so a count alone would let a few
// thousand large ConfigMaps take gigabytes), producers wait: the watch stops reading, and TCP
// pushes back on the API server.
import { untilWokenOrAborted } from '../../lib/signalled-wait.ts';
import { type CacheItem, scopeKey } from './cache-item.ts';

type Segment = { kind: 'events'; items: Map<string, CacheItem> } | { kind: 'marker'; item: CacheItem };

/** What an item weighs against the byte bounds: its object's JSON in UTF-8, as it goes on the wire. */
export const itemBytes = (item: CacheItem): number => (item.type === 'event' ? item.object.length : 0);

export class CoalescingBuffer {
  readonly #capacity: number;
  readonly #maxBytes: number;
  readonly #segments: Segment[] = [];
  #size = 0;
  #bytes = 0;
  #spaceWaiters: Array<() => void> = [];
  #dataWaiters: Array<() => void> = [];

  constructor(capacity: number, maxBytes = Number.POSITIVE_INFINITY) {
    this.#capacity = capacity;
    this.#maxBytes = maxBytes;
  }

  get size(): number {
    return this.#size;
  }

  /** The object JSON held, in UTF-8 bytes. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Full by count, or by bytes while it holds any. */
  get #full(): boolean {
    return this.#size >= this.#capacity || (this.#size > 0 && this.#bytes >= this.#maxBytes);
  }

  /** Adds an item, waiting while the buffer is full (by count, or by bytes while it holds any). */
  async put(item: CacheItem, signal?: AbortSignal): Promise<void> {
    while (this.#full) {
      signal?.throwIfAborted();
      await untilWokenOrAborted((wake) => this.#spaceWaiters.push(wake), signal);
    }
    signal?.throwIfAborted();
    this.#add(item);
  }

  /**
   * Adds an item at once if there is room, and says whether it did; when it did not, `put` waits.
   * A sync puts tens of thousands of objects into a buffer that is seldom full: each `await put`
   * cost a promise and a turn of the microtask queue.
   */
  tryPut(item: CacheItem): boolean {
    if (this.#full) return false;
    this.#add(item);
    return true;
  }

  #add(item: CacheItem): void {
    if (item.type === 'event') {
      const last = this.#segments.at(-1);
      const segment =
        last?.kind === 'events' ? last : { kind: 'events' as const, items: new Map<string, CacheItem>() };
      if (segment !== last) this.#segments.push(segment);
      const key = `${scopeKey(item.scope)}\u0000${item.namespace}\u0000${item.name}`;
      // Re-inserting moves the object to the end, so its latest state is sent after older neighbours.
      const older = segment.items.get(key);
      if (older !== undefined) {
        segment.items.delete(key);
        this.#size--;
        this.#bytes -= itemBytes(older);
      }
      segment.items.set(key, item);
    } else {
      this.#segments.push({ kind: 'marker', item });
    }
    this.#size++;
    this.#bytes += itemBytes(item);
    for (const wake of this.#dataWaiters.splice(0)) wake();
  }

  /** Takes up to `max` items in order, waiting until there is at least one. */
  async take(max: number, signal?: AbortSignal, maxBytes?: number): Promise<CacheItem[]> {
    await this.waitForItems(signal);
    return this.takeNow(max, maxBytes);
  }

  /** Resolves once the buffer holds an item. */
  async waitForItems(signal?: AbortSignal): Promise<void> {
    while (this.#size === 0) {
      signal?.throwIfAborted();
      await untilWokenOrAborted((wake) => this.#dataWaiters.push(wake), signal);
    }
    signal?.throwIfAborted();
  }

  /**
   * Takes up to `max` items in order, at once: none when the buffer is empty. With `maxBytes`, the
   * items' objects stay within it, except that the first item is always taken, however large.
   */
  takeNow(max: number, maxBytes = Number.POSITIVE_INFINITY): CacheItem[] {
    const out: CacheItem[] = [];
    let bytes = 0;
    const fits = (item: CacheItem) => out.length === 0 || bytes + itemBytes(item) <= maxBytes;
    take: while (out.length < max && this.#segments.length > 0) {
      const first = this.#segments[0];
      if (first === undefined) break;
      if (first.kind === 'marker') {
        out.push(first.item);
        this.#segments.shift();
        continue;
      }
      for (const [key, item] of first.items) {
        if (out.length >= max || !fits(item)) break take;
        out.push(item);
        bytes += itemBytes(item);
        first.items.delete(key);
      }
      if (first.items.size === 0) this.#segments.shift();
    }
    this.#size -= out.length;
    this.#bytes -= bytes;
    for (const wake of this.#spaceWaiters.splice(0)) wake();
    return out;
  }

  /** Drops everything buffered (none of it acknowledged); returns how many items that was. */
  clear(): number {
    const dropped = this.#size;
    this.#segments.length = 0;
    this.#size = 0;
    this.#bytes = 0;
    for (const wake of this.#spaceWaiters.splice(0)) wake();
    return dropped;
  }
}
