// A Server-Sent Events client for tests: one real HTTP request, its stream parsed into events as they
// arrive (id, event, JSON data), and waits on them. No library: the framing is the standard's, and
// a test should see exactly what crossed the socket.
export interface SseEvent {
  id: string | undefined;
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the events' JSON field by field.
  data: any;
}

export class SseStream {
  readonly events: SseEvent[] = [];
  /** Comments received (`: heartbeat`). */
  readonly comments: string[] = [];
  readonly status: number;
  readonly contentType: string | null;
  readonly #controller: AbortController;
  readonly #waiters = new Set<() => void>();
  #ended = false;
  readonly done: Promise<void>;
  /** Why the stream ended, when the connection broke rather than ended. */
  error: unknown;

  private constructor(response: Response, controller: AbortController) {
    this.status = response.status;
    this.contentType = response.headers.get('content-type');
    this.#controller = controller;
    this.done = this.#read(response).finally(() => {
      this.#ended = true;
      this.#wake();
    });
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
    const controller = new AbortController();
    const response = await fetch(url, {
      headers: { accept: 'text/event-stream', ...headers },
      signal: controller.signal,
    });
    if (response.status !== 200) {
      const stream = new SseStream(response, controller);
      await stream.done;
      return stream;
    }
    return new SseStream(response, controller);
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** The id of the last event that carried one. */
  get lastId(): string | undefined {
    return this.events.findLast((e) => e.id !== undefined)?.id;
  }

  close(): void {
    this.#controller.abort();
  }

  /** Resolves with the first event (from `from` on) that matches; rejects after `timeoutMs`. */
  async waitFor(match: (event: SseEvent) => boolean, timeoutMs = 15_000, from = 0): Promise<SseEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.slice(from).find(match);
      if (found !== undefined) return found;
      if (this.#ended) throw new Error(`the stream ended without the event; got ${this.describe()}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching event within ${timeoutMs} ms; got ${this.describe()}`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.#waiters.add(wake);
      });
    }
  }

  describe(): string {
    return this.events
      .slice(-8)
      .map((e) => `${e.id ?? '-'} ${e.event} ${JSON.stringify(e.data).slice(0, 160)}`)
      .join('\n  ');
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  async #read(response: Response): Promise<void> {
    if (response.body === null) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          this.#frame(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
        this.#wake();
      }
    } catch (error) {
      // A server killed mid-stream ends it as a network error: the stream has ended, and says why.
      if (!this.#controller.signal.aborted) this.error = error;
    }
  }

  #frame(frame: string): void {
    let id: string | undefined;
    let event = 'message';
    const data: string[] = [];
    for (const line of frame.split('\n')) {
      if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
      else if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length > 0) this.events.push({ id, event, data: JSON.parse(data.join('\n')) });
  }
}
