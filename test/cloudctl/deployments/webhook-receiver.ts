// A webhook receiver that behaves like an external job: it reads the callback URI from the request
// body, answers the request (or fails it on purpose, or holds it unanswered while the test looks
// around), and calls back with a verdict when the test says, with a bearer token, the way a CI job or
// a ticket system would.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';

export interface ReceivedCall {
  path: string;
  body: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
}

/** A request as it arrived, refused ones included, with the status it was (or will be) answered. */
export interface ArrivedRequest {
  path: string;
  status: number;
}

export interface CallbackAnswer {
  status: number;
  body: unknown;
}

export class WebhookReceiver {
  readonly calls: ReceivedCall[] = [];
  /** Every request, in order of arrival, refused ones included. */
  readonly requests: ArrivedRequest[] = [];
  /** Status answers for the next requests, in order; then 200. */
  readonly failFirst: number[] = [];
  /** While true, accepted requests are taken at once (see `next`) but answered only by `release`. */
  holding = false;
  readonly #server: Server;
  readonly #waiters: Array<(call: ReceivedCall) => void> = [];
  readonly #held: Array<() => void> = [];

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      request.on('end', () => {
        const path = request.url ?? '';
        const status = receiver?.failFirst.shift() ?? 200;
        receiver?.requests.push({ path, status });
        const answer = () => response.writeHead(status).end();
        if (status !== 200) {
          answer();
          return;
        }
        const call = { path, body: JSON.parse(text || '{}'), headers: request.headers };
        if (receiver?.holding === true) receiver.#held.push(answer);
        else answer();
        receiver?.received(call);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    receiver = new WebhookReceiver(server);
    return receiver;
  }

  received(call: ReceivedCall): void {
    this.calls.push(call);
    this.#waiters.shift()?.(call);
  }

  /** Requests accepted and not answered yet. */
  get held(): number {
    return this.#held.length;
  }

  /** Answers every held request (200) and stops holding. */
  release(): void {
    this.holding = false;
    for (const answer of this.#held.splice(0)) answer();
  }

  get url(): string {
    const address = this.#server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  }

  /** The next accepted call (or one already received and not yet taken). */
  next(taken: number): Promise<ReceivedCall> {
    const ready = this.calls[taken];
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Posts the verdict to `{callbackUri}/callback` as the job would. */
  static async callBack(
    call: ReceivedCall,
    token: string,
    verdict: { success: boolean; mdMessage?: string },
  ): Promise<CallbackAnswer> {
    const response = await fetch(`${call.body.callbackUri}/callback`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(verdict),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  }

  async close(): Promise<void> {
    this.#server.close();
    this.#server.closeAllConnections();
  }
}
