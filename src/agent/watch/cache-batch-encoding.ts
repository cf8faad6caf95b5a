// The wire form of one `CacheBatch` (proto/orchagent/v1/caching.proto), written straight from the
// watch's cache items into one buffer. Through protobufjs every item became a message object (and
// its object a Buffer copy) before being encoded field by field; at 50k objects a sync that was a
// tenth of the agent's busy time. The bytes read back as what protobufjs writes for the same batch
// (the test decodes both with the contract's own deserializer; these leave empty strings out, as
// proto3 allows), so cloudctl reads them unchanged.
import type { Drift } from '../../contract/index.ts';
import type { CacheItem, ResourceEvent, WatchScope } from './cache-item.ts';

/** A batch as the Publish stream sends it: the items and the sequence the acknowledgement names. */
export interface OutgoingBatch {
  sequence: number;
  items: readonly CacheItem[];
}

/** ResourceEvent.Type's numbers. */
const EVENT_TYPES = { ADDED: 1, MODIFIED: 2, DELETED: 3 } as const;

const utf8Length = (s: string) => Buffer.byteLength(s, 'utf8');

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    size++;
  }
  return size;
}

/** A length-delimited field of `length` bytes: its one-byte tag, its length and its content. */
const delimitedSize = (length: number) => 1 + varintSize(length) + length;
/** proto3 leaves an empty string out. */
const stringSize = (s: string) => (s === '' ? 0 : delimitedSize(utf8Length(s)));
const varintFieldSize = (n: number) => (n === 0 ? 0 : 1 + varintSize(n));

const scopeSize = (s: WatchScope) =>
  stringSize(s.account) + stringSize(s.group) + stringSize(s.kind) + stringSize(s.namespace);

const gvkSize = (e: ResourceEvent) =>
  stringSize(e.scope.group) + stringSize(e.version) + stringSize(e.scope.kind);

type Manager = Drift['managers'][number];

function managerSize(m: Manager): number {
  let size =
    stringSize(m.manager) +
    stringSize(m.operation) +
    stringSize(m.subresource ?? '') +
    stringSize(m.time ?? '') +
    varintFieldSize(m.morePaths);
  // A repeated string keeps its empty elements.
  for (const path of m.paths) size += delimitedSize(utf8Length(path));
  return size;
}

function driftSize(d: Drift): number {
  let size = 0;
  for (const m of d.managers) size += delimitedSize(managerSize(m));
  return size;
}

/** The object's bytes: none for a deletion (the contract), else its one-byte string's length. */
const objectLength = (e: ResourceEvent) => (e.event === 'DELETED' ? 0 : e.object.length);

function eventSize(e: ResourceEvent): number {
  const object = objectLength(e);
  return (
    stringSize(e.scope.account) +
    delimitedSize(gvkSize(e)) +
    stringSize(e.namespace) +
    stringSize(e.name) +
    stringSize(e.resourceVersion) +
    varintFieldSize(EVENT_TYPES[e.event]) +
    (object === 0 ? 0 : delimitedSize(object)) +
    stringSize(e.snapshotId) +
    (e.drift === undefined ? 0 : delimitedSize(driftSize(e.drift)))
  );
}

/** The size of the message inside the item's `CacheItem` (its oneof member). */
function innerSize(item: CacheItem): number {
  switch (item.type) {
    case 'event':
      return eventSize(item);
    case 'snapshotBegin':
      return delimitedSize(scopeSize(item.scope)) + stringSize(item.snapshotId);
    case 'snapshotEnd':
      return (
        delimitedSize(scopeSize(item.scope)) + stringSize(item.snapshotId) + stringSize(item.resourceVersion)
      );
    case 'bookmark':
      return delimitedSize(scopeSize(item.scope)) + stringSize(item.resourceVersion);
  }
}

/** CacheItem's field number per oneof member, as the tag of a length-delimited field. */
const ITEM_TAGS = { event: 0x0a, snapshotBegin: 0x12, snapshotEnd: 0x1a, bookmark: 0x22 } as const;

class Writer {
  readonly buffer: Buffer;
  #at = 0;

  constructor(size: number) {
    this.buffer = Buffer.allocUnsafe(size);
  }

  get written(): number {
    return this.#at;
  }

  varint(n: number): void {
    while (n >= 0x80) {
      this.buffer[this.#at++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buffer[this.#at++] = n;
  }

  /** A field's tag, then (for a length-delimited one) its length. */
  header(tag: number, length: number): void {
    this.buffer[this.#at++] = tag;
    this.varint(length);
  }

  /** proto3 leaves an empty string out, except as an element of a repeated field (`keepEmpty`). */
  string(tag: number, s: string, keepEmpty = false): void {
    if (s === '' && !keepEmpty) return;
    const length = utf8Length(s);
    this.header(tag, length);
    this.#at += this.buffer.write(s, this.#at, length, 'utf8');
  }

  /** Bytes held byte for character in a one-byte string (the form `scrubObjectBytes` gives). */
  latin1(tag: number, s: string): void {
    this.header(tag, s.length);
    this.#at += this.buffer.write(s, this.#at, s.length, 'latin1');
  }

  varintField(tag: number, n: number): void {
    if (n === 0) return;
    this.buffer[this.#at++] = tag;
    this.varint(n);
  }
}

function writeScope(w: Writer, s: WatchScope): void {
  w.header(0x0a, scopeSize(s));
  w.string(0x0a, s.account);
  w.string(0x12, s.group);
  w.string(0x1a, s.kind);
  w.string(0x22, s.namespace);
}

function writeDrift(w: Writer, d: Drift): void {
  w.header(0x4a, driftSize(d));
  for (const m of d.managers) {
    w.header(0x0a, managerSize(m));
    w.string(0x0a, m.manager);
    w.string(0x12, m.operation);
    w.string(0x1a, m.subresource ?? '');
    w.string(0x22, m.time ?? '');
    for (const path of m.paths) w.string(0x2a, path, true);
    w.varintField(0x30, m.morePaths);
  }
}

function writeEvent(w: Writer, e: ResourceEvent): void {
  w.string(0x0a, e.scope.account);
  w.header(0x12, gvkSize(e));
  w.string(0x0a, e.scope.group);
  w.string(0x12, e.version);
  w.string(0x1a, e.scope.kind);
  w.string(0x1a, e.namespace);
  w.string(0x22, e.name);
  w.string(0x2a, e.resourceVersion);
  w.varintField(0x30, EVENT_TYPES[e.event]);
  if (objectLength(e) > 0) w.latin1(0x3a, e.object);
  w.string(0x42, e.snapshotId);
  if (e.drift !== undefined) writeDrift(w, e.drift);
}

function writeItem(w: Writer, item: CacheItem, size: number): void {
  w.header(ITEM_TAGS[item.type], size);
  switch (item.type) {
    case 'event':
      writeEvent(w, item);
      return;
    case 'snapshotBegin':
      writeScope(w, item.scope);
      w.string(0x12, item.snapshotId);
      return;
    case 'snapshotEnd':
      writeScope(w, item.scope);
      w.string(0x12, item.snapshotId);
      w.string(0x1a, item.resourceVersion);
      return;
    case 'bookmark':
      writeScope(w, item.scope);
      w.string(0x12, item.resourceVersion);
      return;
  }
}

/** The batch's `CacheBatch` bytes: the Publish stream's serializer. */
export function encodeCacheBatch(batch: OutgoingBatch): Buffer {
  const sizes = batch.items.map(innerSize);
  let total = varintFieldSize(batch.sequence);
  for (const size of sizes) total += delimitedSize(delimitedSize(size));
  const w = new Writer(total);
  w.varintField(0x08, batch.sequence);
  for (let i = 0; i < batch.items.length; i++) {
    const item = batch.items[i];
    const size = sizes[i];
    if (item === undefined || size === undefined) continue;
    w.header(0x12, delimitedSize(size));
    writeItem(w, item, size);
  }
  if (w.written !== total) throw new Error(`CacheBatch encoding wrote ${w.written} bytes of ${total}`);
  return w.buffer;
}
