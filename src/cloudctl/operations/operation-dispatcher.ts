// The internal API for work on a cluster: send an operation to the agent serving the account and
// wait for its result. Used by tests now, by the REST API and the deployment service later. The
// operation is stored before it is sent, so a result reported after a reconnect still finds it.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { toTimestamp } from '../../proto/index.ts';
import { CloudctlError } from '../errors.ts';
import type { AgentRegistry, AgentSession } from '../sessions/index.ts';
import type { OperationRouter } from './operation-router.ts';
import type { OperationStore } from './operation-store.ts';

export interface OperationRequest {
  /** The operation's id; a new one when absent. A caller that must find the operation again after a
   * restart (a task) chooses it and stores it first. */
  id?: string;
  account: string;
  type: string;
  /** Serialized as JSON for the agent. */
  payload: unknown;
  /** Overrides operations.waitTimeoutMs. */
  timeoutMs?: number;
}

export interface OperationOutcome {
  id: string;
  outcome: 'succeeded' | 'failed';
  /** The handler's JSON result, parsed; undefined when it returned nothing. */
  result: unknown;
  error: string | null;
}

export interface OperationDispatcherDeps {
  registry: AgentRegistry;
  store: { operations: OperationStore };
  logger: Logger;
  now: () => Date;
  waitTimeoutMs: number;
  newId?: () => string;
  /** Told how each waited-for operation ended, for metrics. */
  onOutcome?: (type: string, outcome: 'succeeded' | 'failed' | 'timed_out' | 'no_agent') => void;
  /** Other replicas' sessions, when cloudctl runs in several (none for a single cloudctl). */
  router?: OperationRouter;
}

interface Waiter {
  resolve(outcome: OperationOutcome): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class OperationDispatcher {
  readonly #deps: OperationDispatcherDeps;
  readonly #waiting = new Map<string, Waiter>();

  constructor(deps: OperationDispatcherDeps) {
    this.#deps = deps;
  }

  /** Whether a session here or on another replica serves the account. */
  async serves(account: string): Promise<boolean> {
    if (this.#deps.registry.sessionFor(account) !== undefined) return true;
    return (await this.#deps.router?.holderOf(account)) !== undefined;
  }

  async execute(request: OperationRequest): Promise<OperationOutcome> {
    const { registry, store, now } = this.#deps;
    const session = registry.sessionFor(request.account);
    const remote = session === undefined ? await this.#deps.router?.holderOf(request.account) : undefined;
    const target = session ?? remote;
    if (target === undefined) {
      this.#deps.onOutcome?.(request.type, 'no_agent');
      throw new CloudctlError('AGENT_NOT_CONNECTED', `no connected agent serves account ${request.account}`);
    }
    const id = request.id ?? (this.#deps.newId ?? randomUUID)();
    const timeoutMs = request.timeoutMs ?? this.#deps.waitTimeoutMs;
    const deadline = new Date(now().getTime() + timeoutMs);
    const payload = JSON.stringify(request.payload ?? null);
    await store.operations.create(
      { id, account: request.account, agentId: target.agentId, type: request.type, payload, deadline },
      now(),
    );
    const result = this.#wait(id, request.type, request.account, deadline, target.resultRetryWindowMs);
    if (session !== undefined) this.#send(session, { ...request, id, payload, deadline });
    else if (remote !== undefined) {
      // The holding replica reads the stored operation and sends it; its result comes back here
      // through the database and the router's word that it is stored.
      await this.#deps.router?.route(remote, id);
      this.#deps.logger.debug(
        { operationId: id, type: request.type, account: request.account, replica: remote.replicaId },
        'operation routed to the replica holding the agent',
      );
    }
    return result;
  }

  /**
   * Sends an operation another replica stored for a session of this one. Nothing happens when the
   * operation has a result or passed its deadline, or the session is gone (the caller's wait ends at
   * its deadline).
   */
  async deliver(operationId: string, sessionId: string): Promise<void> {
    const { registry, store, logger, now } = this.#deps;
    const stored = await store.operations.get(operationId);
    if (stored === undefined || stored.reportedAt !== null || stored.deadline <= now()) return;
    const session = registry.session(sessionId) ?? registry.newestSessionOf(stored.agentId);
    if (session === undefined) {
      logger.warn({ operationId, sessionId }, 'routed operation: the session is no longer here');
      return;
    }
    this.#send(session, {
      id: stored.id,
      type: stored.type,
      account: stored.account,
      payload: JSON.stringify(stored.payload ?? null),
      deadline: stored.deadline,
    });
  }

  #send(
    session: AgentSession,
    operation: { id: string; type: string; account: string; payload: string; deadline: Date },
  ): void {
    const sent = session.send({
      operation: {
        id: operation.id,
        type: operation.type,
        account: operation.account,
        payload: Buffer.from(operation.payload),
        deadline: toTimestamp(operation.deadline),
      },
    });
    this.#deps.logger.debug(
      { operationId: operation.id, type: operation.type, account: operation.account, sent },
      'operation sent',
    );
  }

  /**
   * Waits for the result of an operation sent earlier, perhaps by a process that has since stopped:
   * its result may already be stored, or come in until the operation's deadline.
   */
  async await(id: string): Promise<OperationOutcome> {
    const stored = await this.#deps.store.operations.get(id);
    if (stored === undefined) throw new CloudctlError('OPERATION_FAILED', `operation ${id} was never sent`);
    // The window of the agent's current session: the one that took the operation may be gone.
    const graceMs = this.#deps.registry.newestSessionOf(stored.agentId)?.resultRetryWindowMs ?? 0;
    const waiting = this.#wait(id, stored.type, stored.account, stored.deadline, graceMs);
    // The result may have been stored between the read above and the wait starting: look again.
    const again = await this.#deps.store.operations.get(id);
    if (again?.reportedAt != null) {
      this.resultRecorded({
        id,
        outcome: again.state === 'failed' ? 'failed' : 'succeeded',
        result: again.result ?? undefined,
        error: again.error,
      });
    }
    return waiting;
  }

  /**
   * Waits until the deadline and then `graceMs` more: the agent's result retry window
   * (`cloudctl.responseRetries`), so a result produced just before the deadline and delivered on a
   * retry still finds its waiter. The agent starts no work past the deadline itself.
   */
  #wait(
    id: string,
    type: string,
    account: string,
    deadline: Date,
    graceMs: number,
  ): Promise<OperationOutcome> {
    const { store, logger, now } = this.#deps;
    return new Promise<OperationOutcome>((resolve, reject) => {
      const timeoutMs = Math.max(0, deadline.getTime() + graceMs - now().getTime());
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        this.#deps.onOutcome?.(type, 'timed_out');
        store.operations
          .markTimedOut(id)
          .catch((error: unknown) =>
            logger.error({ err: error, operationId: id }, 'cannot mark operation timed out'),
          );
        reject(
          new CloudctlError(
            'OPERATION_TIMEOUT',
            `operation ${id} (${type} on ${account}) had no result by its deadline ${deadline.toISOString()}${graceMs > 0 ? ` and the agent's ${graceMs} ms of result retries after it` : ''}`,
          ),
        );
      }, timeoutMs);
      this.#waiting.set(id, {
        resolve: (outcome) => {
          this.#deps.onOutcome?.(type, outcome.outcome);
          resolve(outcome);
        },
        reject,
        timer,
      });
    });
  }

  /** Called once a result is recorded: hands it to whoever waits for it, here or on another replica. */
  resultRecorded(outcome: OperationOutcome): void {
    const waiter = this.#waiting.get(outcome.id);
    if (waiter === undefined) {
      this.#deps.router
        ?.resultStored(outcome.id)
        .catch((error: unknown) =>
          this.#deps.logger.warn(
            { err: error, operationId: outcome.id },
            'cannot tell the replicas of a result',
          ),
        );
      return;
    }
    this.#waiting.delete(outcome.id);
    clearTimeout(waiter.timer);
    waiter.resolve(outcome);
  }

  /** Another replica stored the result of an operation: if it is waited for here, reads and hands it on. */
  async resultStoredElsewhere(operationId: string): Promise<void> {
    if (!this.#waiting.has(operationId)) return;
    const stored = await this.#deps.store.operations.get(operationId);
    if (stored?.reportedAt == null) return;
    const waiter = this.#waiting.get(operationId);
    if (waiter === undefined) return;
    this.#waiting.delete(operationId);
    clearTimeout(waiter.timer);
    waiter.resolve({
      id: operationId,
      outcome: stored.state === 'failed' ? 'failed' : 'succeeded',
      result: stored.result ?? undefined,
      error: stored.error,
    });
  }

  /** Reads every awaited operation again (word of stored results may have been missed). */
  async recheckWaiting(): Promise<void> {
    await Promise.all([...this.#waiting.keys()].map((id) => this.resultStoredElsewhere(id)));
  }

  /** Fails every wait (the control plane is stopping). */
  close(): void {
    for (const [id, waiter] of this.#waiting) {
      clearTimeout(waiter.timer);
      waiter.reject(new CloudctlError('SESSION_CLOSED', `operation ${id}: the control plane is stopping`));
    }
    this.#waiting.clear();
  }
}
