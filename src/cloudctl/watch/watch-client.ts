// One client of GET /watch: the stream its events are written to as Server-Sent Events, where it
// stands in the sequence, and what it may read. A client that reads slower than events come is ended
// once `bufferBytes` wait unread, with a last `closed` event: cloudctl never holds more for it.
import { PassThrough } from 'node:stream';
import type { Principal } from '../auth/index.ts';
import type { ClosedEvent } from './watch-events.ts';
import type { WatchFilter } from './watch-filter.ts';

export class WatchClient {
  /** What the HTTP answer sends. */
  readonly stream = new PassThrough();
  readonly user: Principal;
  readonly filter: WatchFilter;
  /** The last number this client was sent or passed over. */
  position: number;
  /** Whether the hub sends it what it reads; false while it catches up on its own. */
  live = false;
  /** The accounts its user may read, as of the last batch (null: an admin, every account). */
  readable: ReadonlySet<string> | null = new Set();
  /** Why cloudctl ended the stream, when it did. */
  closedFor: ClosedEvent['reason'] | undefined;
  readonly #bufferBytes: number;
  #ended = false;

  constructor(options: { user: Principal; filter: WatchFilter; position: number; bufferBytes: number }) {
    this.user = options.user;
    this.filter = options.filter;
    this.position = options.position;
    this.#bufferBytes = options.bufferBytes;
    this.stream.on('close', () => {
      this.#ended = true;
    });
  }

  get ended(): boolean {
    return this.#ended || this.stream.destroyed;
  }

  /** Writes one event; `id` sets the client's Last-Event-ID. False once the client is ended. */
  send(event: string, data: unknown, id?: number): boolean {
    if (this.ended) return false;
    const frame = `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    this.stream.write(frame);
    if (this.stream.writableLength > this.#bufferBytes) {
      this.close({
        reason: 'SLOW_CLIENT',
        message: `more than ${this.#bufferBytes} bytes of events were left unread; resume with Last-Event-ID`,
      });
      return false;
    }
    return true;
  }

  /** An SSE comment: ignored by clients, it keeps proxies from closing an idle stream. */
  comment(text: string): void {
    if (!this.ended) this.stream.write(`: ${text}\n\n`);
  }

  /** Ends the stream with a `closed` event saying why. */
  close(event: ClosedEvent): void {
    if (this.ended) return;
    this.#ended = true;
    this.closedFor = event.reason;
    this.stream.end(`event: closed\ndata: ${JSON.stringify(event)}\n\n`);
  }
}
