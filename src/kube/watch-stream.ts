// The events of one watch response, a chunk of the body at a time: the events whose lines end in one
// chunk come together, one step per chunk rather than per event (in round four's profile of a
// 50k-object streaming list, reading the watch lines took 19% of the agent's busy time, the async
// machinery of a step per event among it: docs/benchmarks.md).
//
// An iterator object, not an async generator: a suspended generator keeps in its registers what its
// finished steps read (V8 does not clear registers that are dead), so a quiet watch held on to its
// last chunk, the joined line of its last large object and that step's events for as long as it
// stayed quiet: 1 418 Buffers in a heap snapshot of an agent with 1 200 idle watches, and up to an
// object's size (1.5 MiB) each. Here each step is an async call that returns, so what a step read
// belongs to its consumer alone.
//
// A chunk is read only when the consumer asks for the next events: while the agent's buffer is full
// the body stays unread (undici pauses the socket once its stream holds its high-water mark), so TCP
// holds the API server back. (readline reads ahead without limit: with a thousand streaming lists
// waiting on a full buffer it queued hundreds of MiB of lines.) Lines stay bytes: each event's object
// goes on as the API server wrote it (watch-event.ts).
import type { Readable } from 'node:stream';
import { WatchCutError } from './watch-cut-error.ts';
import { parseWatchLine, type WatchEvent } from './watch-event.ts';

const NEWLINE = 0x0a;
const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

export class WatchStream implements AsyncIterableIterator<WatchEvent[], undefined> {
  /** Sends the request; the body of its answer (an error status is thrown by it). */
  readonly #open: () => Promise<Readable>;
  readonly #server: string;
  readonly #signal: AbortSignal;
  #body: Readable | undefined;
  #chunks: AsyncIterator<unknown> | undefined;
  /**
   * The start of a line whose end has not come yet: the chunks it spans (a large object spans many;
   * joining them once, when its end comes, copies each once).
   */
  #partial: Buffer[] = [];
  #closed = false;

  constructor(open: () => Promise<Readable>, server: string, signal: AbortSignal) {
    this.#open = open;
    this.#server = server;
    this.#signal = signal;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The events of the next chunk that ends a line; done when the server ends the watch. */
  async next(): Promise<IteratorResult<WatchEvent[], undefined>> {
    try {
      return await this.#step();
    } catch (error) {
      this.#close();
      throw error;
    }
  }

  /** Ends the request and frees its connection: a consumer that stops early, or after an abort. */
  async return(): Promise<IteratorResult<WatchEvent[], undefined>> {
    this.#close();
    return DONE;
  }

  async #step(): Promise<IteratorResult<WatchEvent[], undefined>> {
    if (this.#closed) return DONE;
    if (this.#chunks === undefined) {
      this.#body = await this.#open();
      this.#chunks = this.#body[Symbol.asyncIterator]();
    }
    for (;;) {
      const next = await this.#nextChunk(this.#chunks);
      if (next.done === true) {
        const last = this.#partial.length === 0 ? undefined : parseWatchLine(Buffer.concat(this.#partial));
        this.#close();
        return last === undefined ? DONE : { done: false, value: [last] };
      }
      const events = this.#split(next.value as Buffer);
      if (events.length > 0) return { done: false, value: events };
    }
  }

  /** The events of the lines that end in `chunk`; its unfinished end is kept for the next. */
  #split(chunk: Buffer): WatchEvent[] {
    const events: WatchEvent[] = [];
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end >= 0; end = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, end);
      const line = this.#partial.length === 0 ? piece : Buffer.concat([...this.#partial, piece]);
      this.#partial = [];
      start = end + 1;
      const event = parseWatchLine(line);
      if (event !== undefined) events.push(event);
    }
    if (start < chunk.length) this.#partial.push(chunk.subarray(start));
    return events;
  }

  /** The body's next chunk; a stream that breaks (not one we abort) names the server it came from. */
  async #nextChunk(chunks: AsyncIterator<unknown>): Promise<IteratorResult<unknown>> {
    try {
      return await chunks.next();
    } catch (error) {
      if (this.#signal.aborted) throw error;
      throw new WatchCutError(this.#server, error);
    }
  }

  #close(): void {
    this.#closed = true;
    this.#partial = [];
    if (this.#body !== undefined && !this.#body.destroyed) this.#body.destroy();
  }
}
