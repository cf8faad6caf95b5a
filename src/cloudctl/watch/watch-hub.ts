// Every client of GET /watch in this process, fed from one read of the watch sequence: when a store
// commits (the local signal), another replica says so (the bus), or a second passes, the hub learns
// the horizon (store/watch-sequence.ts), reads what lies between its position and it once, and hands
// each event to the clients it passes. A client resuming from further back catches up on its own
// reads first, then joins; the hand-over is synchronous, so no number falls between the two.
// The hub reads only while it has clients: without them ingest pays nothing but the numbers.
import type { Logger } from 'pino';
import type { Principal } from '../auth/index.ts';
import { WatchClient } from './watch-client.ts';
import type { ResetEvent } from './watch-events.ts';
import { passes, type WatchFilter } from './watch-filter.ts';
import type { WatchReader, WatchRecord } from './watch-reader.ts';

/** Rows read per kind per read: enough for a busy second, small enough to bound one read's memory. */
const BATCH = 1000;
/** How often the hub reads without a word: words from other replicas are best effort. */
const SWEEP_MS = 1000;

export interface WatchHubDeps {
  reader: Pick<WatchReader, 'read'>;
  /** The highest number every writer has committed (store/watch-sequence.ts). */
  horizon(): Promise<number>;
  /** Every removal numbered at or below it is gone: a client further back reads again. */
  floor(): Promise<number>;
  /** The accounts the user may read now; null for every account (an admin). */
  readable(user: Principal): Promise<ReadonlySet<string> | null>;
  heartbeatMs: number;
  bufferBytes: number;
  logger: Logger;
  /** Clients following now, and streams ended by cloudctl by reason. */
  metrics: { clients: { inc(): void; dec(): void }; closed: { inc(labels: { reason: string }): void } };
}

export interface JoinRequest {
  user: Principal;
  filter: WatchFilter;
  /** The client's Last-Event-ID (or `since`): undefined starts from now. */
  since: string | undefined;
}

export class WatchHub {
  readonly #deps: WatchHubDeps;
  readonly #clients = new Set<WatchClient>();
  /** Every number up to it has been read and handed out; -1 while the hub has not started. */
  #position = -1;
  #starting: Promise<void> | undefined;
  #reading = false;
  #again = false;
  #timers: NodeJS.Timeout[] = [];
  #closed = false;

  constructor(deps: WatchHubDeps) {
    this.#deps = deps;
  }

  get clients(): number {
    return this.#clients.size;
  }

  /** A store committed numbered rows, here or on another replica: read them soon. */
  wake(): void {
    if (this.#clients.size === 0 || this.#position < 0) return;
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = true;
    this.#pump()
      .catch((error: unknown) =>
        this.#deps.logger.warn({ err: error }, 'watch: reading the sequence failed; retrying'),
      )
      .finally(() => {
        this.#reading = false;
        if (this.#again) {
          this.#again = false;
          this.wake();
        }
      });
  }

  /** Opens a client's stream: its first event, what it missed since its position, then what comes. */
  async join(request: JoinRequest): Promise<WatchClient> {
    if (this.#closed) throw new Error('the watch hub is closed');
    await this.#start();
    if (this.#clients.size === 0 && !this.#reading) {
      // Idle since its last client left: nobody needs what came meanwhile, and a new client starts now.
      const horizon = await this.#deps.horizon();
      if (this.#clients.size === 0) this.#position = Math.max(this.#position, horizon);
    }
    const client = new WatchClient({
      user: request.user,
      filter: request.filter,
      position: this.#position,
      bufferBytes: this.#deps.bufferBytes,
    });
    client.readable = await this.#deps.readable(request.user);
    const reset = await this.#resumeAt(client, request.since);
    client.send('position', { position: String(client.position) }, client.position);
    if (reset !== undefined) client.send('reset', reset, client.position);
    this.#clients.add(client);
    this.#deps.metrics.clients.inc();
    client.stream.on('close', () => {
      this.#clients.delete(client);
      this.#deps.metrics.clients.dec();
      if (client.closedFor !== undefined) this.#deps.metrics.closed.inc({ reason: client.closedFor });
    });
    this.#catchUp(client).catch((error: unknown) => {
      this.#deps.logger.warn({ err: error }, 'watch: a client could not catch up');
      client.stream.destroy();
    });
    return client;
  }

  /** Ends every stream with a `closed` event and stops reading. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#timers) clearInterval(timer);
    for (const client of this.#clients)
      client.close({ reason: 'SHUTTING_DOWN', message: 'cloudctl is stopping; resume with Last-Event-ID' });
    this.#clients.clear();
  }

  #start(): Promise<void> {
    this.#starting ??= this.#deps.horizon().then((position) => {
      this.#position = Math.max(this.#position, position);
      this.#timers = [
        setInterval(() => this.wake(), SWEEP_MS),
        setInterval(() => {
          for (const client of this.#clients) client.comment('heartbeat');
        }, this.#deps.heartbeatMs),
      ];
      for (const timer of this.#timers) timer.unref();
    });
    return this.#starting;
  }

  /** Sets where the client starts; a reset to tell it when its position cannot be resumed from. */
  async #resumeAt(client: WatchClient, since: string | undefined): Promise<ResetEvent | undefined> {
    if (since === undefined) return undefined;
    const asked = /^\d{1,15}$/.test(since) ? Number(since) : Number.NaN;
    const [floor, horizon] = await Promise.all([this.#deps.floor(), this.#deps.horizon()]);
    if (Number.isNaN(asked) || asked > horizon) {
      client.position = this.#position;
      return {
        reason: 'UNKNOWN_POSITION',
        message: `no event ${since} was ever sent here; read the current state again`,
        position: String(this.#position),
      };
    }
    if (asked < floor) {
      client.position = this.#position;
      return {
        reason: 'TOO_OLD',
        message: `event ${since} is older than the kept window (from ${floor}); read the current state again`,
        position: String(this.#position),
      };
    }
    client.position = asked;
    return undefined;
  }

  /** Reads what the client missed, on its own, until it stands where the hub does; then it is live. */
  async #catchUp(client: WatchClient): Promise<void> {
    while (!client.ended) {
      const target = this.#position;
      if (client.position >= target) {
        client.live = true;
        return;
      }
      const accounts = client.readable === null ? undefined : [...client.readable];
      const { records, reached } = await this.#deps.reader.read({
        after: client.position,
        upTo: target,
        accounts: client.filter.accounts === undefined ? accounts : [...client.filter.accounts],
        limit: BATCH,
      });
      client.readable = await this.#deps.readable(client.user);
      deliver(client, records, reached);
    }
  }

  async #pump(): Promise<void> {
    for (;;) {
      const horizon = await this.#deps.horizon();
      if (horizon <= this.#position || this.#clients.size === 0) return;
      const { records, reached } = await this.#deps.reader.read({
        after: this.#position,
        upTo: horizon,
        limit: BATCH,
      });
      const live = [...this.#clients].filter((c) => c.live);
      const readable = await Promise.all(
        live.map(async (c) => [c, await this.#deps.readable(c.user)] as const),
      );
      for (const [client, accounts] of readable) client.readable = accounts;
      // Synchronous from here: a client that turns live now stands at the old position and gets this batch.
      for (const client of this.#clients) if (client.live) deliver(client, records, reached);
      this.#position = reached;
    }
  }
}

/** Sends the client the records it passes, past its position, and moves it to `reached`. */
function deliver(client: WatchClient, records: readonly WatchRecord[], reached: number): void {
  for (const record of records) {
    if (record.seq <= client.position) continue;
    if (!passes(client.filter, record, client.readable)) continue;
    if (!client.send(record.event, record.data, record.seq)) return;
  }
  client.position = Math.max(client.position, reached);
}
