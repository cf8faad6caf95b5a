// This process as one of several cloudctl replicas on one PostgreSQL: it beats, publishes the agent
// sessions it holds, routes an operation to the replica whose session serves the account, sends the
// operations routed to it, and passes on word that a result is stored. Every fact lives in the
// database; the bus only says "look now", so a missed word costs latency, never data.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { OperationRouter, RemoteSession } from '../operations/index.ts';
import type { AgentRegistry } from '../sessions/index.ts';
import type { ReplicaBus } from './replica-bus.ts';
import type { ReplicaStore } from './replica-store.ts';

const ROUTE_CHANNEL = 'orchagent_route';
const RESULT_CHANNEL = 'orchagent_result';
const PLACE_CHANNEL = 'orchagent_place';
const WATCH_CHANNEL = 'orchagent_watch';
/** At most one word a replica says per this long that its watch sequence moved: a reader reads all there is. */
const WATCH_WORD_MS = 20;

export interface ReplicaMembershipDeps {
  store: ReplicaStore;
  bus: ReplicaBus;
  registry: AgentRegistry;
  logger: Logger;
  beatMs: number;
}

/**
 * What the words of other replicas set off here. Given at `start`, once the features that answer
 * them exist: the operations and the placement take this membership when they are built.
 */
export interface ReplicaHandlers {
  /** Sends an operation stored by another replica on a session of this one. */
  deliver(operationId: string, sessionId: string): Promise<void>;
  /** Another replica stored an operation's result. */
  resultStored(operationId: string): Promise<void>;
  /** The bus lost words: read every awaited result again. */
  recheck(): Promise<void>;
  /** Another replica changed dynamic accounts: place them on the agents connected here. */
  place(trigger: { intercept?: string }): Promise<void>;
}

interface PlaceWord {
  replicaId: string;
  intercept?: string;
}

interface RouteWord {
  replicaId: string;
  operationId: string;
  sessionId: string;
}

export class ReplicaMembership implements OperationRouter {
  readonly id = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  readonly #deps: ReplicaMembershipDeps;
  #timer: NodeJS.Timeout | undefined;
  #publishing: Promise<void> = Promise.resolve();
  #republish = false;
  readonly #watchers: Array<() => void> = [];
  #watchWord: NodeJS.Timeout | undefined;

  constructor(deps: ReplicaMembershipDeps) {
    this.#deps = deps;
  }

  /** Opens the bus, listens, and beats from now on; `close` ends all of it, also after a failed start. */
  async start(handlers: ReplicaHandlers): Promise<void> {
    const { bus, logger } = this.#deps;
    await bus.open();
    await bus.listen(ROUTE_CHANNEL, (payload) => {
      const word = parseWord<RouteWord>(payload);
      if (word?.replicaId !== this.id) return;
      handlers
        .deliver(word.operationId, word.sessionId)
        .catch((error: unknown) =>
          logger.error({ err: error, operationId: word.operationId }, 'cannot send a routed operation'),
        );
    });
    await bus.listen(RESULT_CHANNEL, (operationId) => {
      handlers
        .resultStored(operationId)
        .catch((error: unknown) => logger.warn({ err: error, operationId }, 'cannot read a stored result'));
    });
    await bus.listen(PLACE_CHANNEL, (payload) => {
      const word = parseWord<PlaceWord>(payload);
      if (word === undefined || word.replicaId === this.id) return;
      Promise.resolve()
        .then(() => handlers.place(word.intercept === undefined ? {} : { intercept: word.intercept }))
        .catch((error: unknown) => logger.warn({ err: error }, 'cannot place dynamic accounts'));
    });
    await bus.listen(WATCH_CHANNEL, (replicaId) => {
      if (replicaId !== this.id) for (const watcher of this.#watchers) watcher();
    });
    bus.onReconnected(() => {
      for (const watcher of this.#watchers) watcher();
      handlers.recheck().catch((error: unknown) => logger.warn({ err: error }, 'cannot re-read results'));
    });
    this.#deps.registry.onChange(() => this.#publish());
    await this.#beat();
    this.#timer = setInterval(() => {
      this.#beat().catch((error: unknown) => logger.warn({ err: error }, 'replica beat failed'));
    }, this.#deps.beatMs);
    this.#timer.unref();
    logger.info({ replica: this.id }, 'serving as a replica on the shared database');
  }

  async holderOf(account: string): Promise<RemoteSession | undefined> {
    const holders = await this.#deps.store.holdersOf(account, this.id);
    // As AgentRegistry.sessionFor chooses locally: an agent's own definition first, then the newest.
    let chosen: (typeof holders)[number] | undefined;
    let chosenStatic = false;
    for (const holder of holders) {
      const isStatic = holder.accounts.some((a) => a.name === account && a.static);
      if (chosenStatic && !isStatic) continue;
      if (chosen === undefined || (isStatic && !chosenStatic) || holder.connectedAt >= chosen.connectedAt) {
        chosen = holder;
        chosenStatic = isStatic;
      }
    }
    return chosen;
  }

  async agentConnected(agentId: string): Promise<boolean> {
    return this.#deps.store.agentConnected(agentId, this.id);
  }

  async dynamicAgentIn(zoneId: string | null): Promise<boolean> {
    return this.#deps.store.dynamicAgentIn(zoneId, this.id);
  }

  sessionsElsewhere(): Promise<Set<string>> {
    return this.#deps.store.sessionIdsElsewhere(this.id);
  }

  async route(holder: RemoteSession, operationId: string): Promise<void> {
    const word: RouteWord = { replicaId: holder.replicaId, operationId, sessionId: holder.sessionId };
    await this.#deps.bus.notify(ROUTE_CHANNEL, JSON.stringify(word));
  }

  /** Asks the other replicas for a placement pass; best effort (they also pass on their own events). */
  announcePlacement(trigger: { intercept?: string }): void {
    const word: PlaceWord = { replicaId: this.id, ...trigger };
    this.#deps.bus
      .notify(PLACE_CHANNEL, JSON.stringify(word))
      .catch((error: unknown) => this.#deps.logger.warn({ err: error }, 'cannot announce a placement'));
  }

  /**
   * Tells the other replicas that this one committed rows of the watch sequence, so their watch
   * clients read them now rather than at their next sweep; words within WATCH_WORD_MS are one.
   */
  watchChanged(): void {
    if (this.#watchWord !== undefined) return;
    this.#watchWord = setTimeout(() => {
      this.#watchWord = undefined;
      this.#deps.bus
        .notify(WATCH_CHANNEL, this.id)
        .catch((error: unknown) => this.#deps.logger.warn({ err: error }, 'cannot announce watch changes'));
    }, WATCH_WORD_MS);
  }

  /** Called when another replica committed rows of the watch sequence (or words may have been lost). */
  onWatchChanged(watcher: () => void): void {
    this.#watchers.push(watcher);
  }

  async resultStored(operationId: string): Promise<void> {
    await this.#deps.bus.notify(RESULT_CHANNEL, operationId);
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    clearTimeout(this.#watchWord);
    try {
      await this.#publishing;
      await this.#deps.store.leave(this.id);
    } finally {
      // Whatever the database said: an open listening connection would keep the process alive.
      await this.#deps.bus.close();
    }
  }

  async #beat(): Promise<void> {
    await this.#deps.store.beat(this.id);
    // Also repairs a publish that failed: the sessions are rewritten from the registry each beat.
    this.#publish();
    await this.#publishing;
  }

  /** Writes the registry's sessions; changes during a write are written once more after it. */
  #publish(): void {
    if (this.#republish) return;
    this.#republish = true;
    this.#publishing = this.#publishing.then(async () => {
      this.#republish = false;
      const sessions = this.#deps.registry.list().map((session) => ({
        sessionId: session.sessionId,
        agentId: session.agentId,
        connectedAt: session.connectedAt,
        resultRetryWindowMs: session.resultRetryWindowMs,
        zoneId: session.zoneId,
        takesDynamicAccounts: session.dynamicAccounts.enabled,
        accounts: session.accounts.map((a) => ({ name: a.name, static: a.source === 'static-agent-config' })),
      }));
      await this.#deps.store.publish(this.id, sessions).catch((error: unknown) => {
        this.#deps.logger.warn({ err: error }, 'cannot publish the sessions this replica holds');
      });
    });
  }
}

/** A word another replica said; anything else on the channel (a stray NOTIFY) is ignored. */
function parseWord<T extends { replicaId: string }>(payload: string): T | undefined {
  try {
    const word: unknown = JSON.parse(payload);
    return typeof word === 'object' && word !== null && 'replicaId' in word ? (word as T) : undefined;
  } catch {
    return undefined;
  }
}
