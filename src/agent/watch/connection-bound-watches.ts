// Watches run while a session with the control plane is registered. The spec: "a launched task runs
// until explicitly stopped (account unregistered or connection to the control plane lost)". When the
// session ends, every account's watches (and pod metrics) stop and what the buffer holds is dropped:
// none of it was acknowledged, and the control plane's resume points say where to start again. When a
// session is registered again, the watches start from those points (within
// `maxResumableResourceAgeMs`) without a list, or list when the outage was longer.
// Why not watch through an outage: the buffer fills, then the watches sit unread on the API servers
// (which close slow watchers), holding connections and memory for events nobody can take; a restart
// costs one resume request per account after a short outage and a list after a long one, which is
// what an unread watch ends in too.
// Starts and stops go through one queue, so a session that ends while watches start (or an account
// that is assigned meanwhile) never leaves a watcher running without a session.

export interface ConnectionBoundWatchesDeps {
  /** The accounts to watch once connected: ACTIVE ones the control plane wants cached. */
  accounts: () => string[];
  /** Starts several accounts, in groups where the config says so (cacheGroupSize). */
  startGroups: (names: string[]) => Promise<void>;
  /** Starts one account's watches (and pod metrics); a no-op for an account already watched. */
  start: (name: string) => Promise<void>;
  stop: (name: string) => Promise<void>;
  /** Accounts whose watches run now. */
  watched: () => string[];
  /** Drops the buffered items; returns how many. */
  dropBuffered: () => number;
  log: { info(fields: object, message: string): void; error(fields: object, message: string): void };
}

export class ConnectionBoundWatches {
  readonly #deps: ConnectionBoundWatchesDeps;
  #connected = false;
  /** False until the static accounts have been checked at start (they start together, in groups). */
  #opened = false;
  #queue: Promise<void> = Promise.resolve();

  constructor(deps: ConnectionBoundWatchesDeps) {
    this.#deps = deps;
  }

  /** For `ControlPlaneConnection.onStateChange`. */
  connectionChanged(state: string, previous: string): void {
    if (state === 'connected') {
      this.#connected = true;
      if (this.#opened) void this.#enqueue(() => this.#startAll('control plane connected'));
    } else if (previous === 'connected') {
      this.#connected = false;
      void this.#enqueue(() => this.#stopAll());
    }
  }

  /** The static accounts are checked: watch them (now, or once connected). */
  open(): Promise<void> {
    this.#opened = true;
    return this.#connected ? this.#enqueue(() => this.#startAll('agent started')) : Promise.resolve();
  }

  /** One account's watches, for the account lifecycle: they start now only while connected. */
  start(name: string): Promise<void> {
    return this.#enqueue(async () => {
      if (this.#connected && this.#opened) await this.#deps.start(name);
    });
  }

  stop(name: string): Promise<void> {
    return this.#enqueue(() => this.#deps.stop(name));
  }

  #enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.#queue
      .then(work)
      .catch((error: unknown) => this.#deps.log.error({ err: error }, 'starting or stopping watches failed'));
    this.#queue = next;
    return next;
  }

  async #startAll(why: string): Promise<void> {
    if (!this.#connected) return;
    const names = this.#deps.accounts();
    if (names.length === 0) return;
    this.#deps.log.info(
      { accounts: names },
      `${why}: starting watches from the control plane's resume points`,
    );
    await this.#deps.startGroups(names);
    await Promise.all(names.map((name) => this.#deps.start(name)));
  }

  async #stopAll(): Promise<void> {
    const names = this.#deps.watched();
    await Promise.all(names.map((name) => this.#deps.stop(name)));
    const dropped = this.#deps.dropBuffered();
    if (names.length > 0)
      this.#deps.log.info(
        { accounts: names, droppedUnacknowledged: dropped },
        'control plane connection lost: watches stopped until it is back',
      );
  }
}
