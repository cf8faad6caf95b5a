// The internal API for work on a cluster: send an operation to the agent serving the account and
// wait for its result: the tasks of the REST API and the deployment service use it. The operation is
// stored before it is sent, so a result reported after a reconnect still finds it. When the session
// that took an operation ends before its result is in, the operation is sent again, with the same id,
// to the next session serving its account, unless a repeat is unsafe (repeat-policy.ts): then it
// fails at once with that reason instead of at its deadline.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import {
  checkResult,
  type OperationFailure,
  type OperationPayload,
  type OperationResult,
  type OperationType,
  operationCallSchema,
} from '../../contract/index.ts';
import { toTimestamp } from '../../proto/index.ts';
import { CloudctlError } from '../errors.ts';
import type { AgentRegistry, AgentSession } from '../sessions/index.ts';
import type { OperationRouter } from './operation-router.ts';
import type { OperationStore, StoredOperation } from './operation-store.ts';
import { unrepeatableReason } from './repeat-policy.ts';

/** An operation to send: the compiler checks the payload against the contract's schema for `type`. */
export interface OperationRequest<T extends OperationType = OperationType> {
  /** The operation's id; a new one when absent. A caller that must find the operation again after a
   * restart (a task) chooses it and stores it first. */
  id?: string;
  account: string;
  type: T;
  /** Serialized as JSON for the agent. */
  payload: OperationPayload<T>;
  /** Overrides operations.waitTimeoutMs. */
  timeoutMs?: number;
  /**
   * The caller stored `id` where a restart finds it (a task's step): the operation goes to a session
   * of this replica while its own row is being written, instead of after. A restart that finds no row
   * sends it again under that id, which the agent answers with the run it has.
   */
  idStoredByCaller?: boolean;
}

/**
 * How an operation ended: its result, checked against the contract's schema for its type, or its
 * failure with the agent's code. A result that does not match the schema is an INVALID_RESULT failure.
 */
export type OperationOutcome<T extends OperationType = OperationType> =
  | { id: string; outcome: 'succeeded'; result: OperationResult<T> }
  | { id: string; outcome: 'failed'; error: OperationFailure };

/** A result as recorded, before it is checked against its type's schema. */
export interface RecordedResult {
  id: string;
  outcome: 'succeeded' | 'failed';
  /** The handler's JSON result, parsed; undefined when it returned nothing. */
  result: unknown;
  error: OperationFailure | null;
}

/** The recorded result as its type's outcome. */
function settle<T extends OperationType>(type: T, recorded: RecordedResult): OperationOutcome<T> {
  const { id } = recorded;
  if (recorded.outcome === 'failed')
    return { id, outcome: 'failed', error: recorded.error ?? { code: 'FAILED', message: 'no reason given' } };
  const result = checkResult(type, recorded.result);
  if (result.ok) return { id, outcome: 'succeeded', result: result.value };
  const at = result.path === '' ? '' : ` at ${result.path}`;
  return {
    id,
    outcome: 'failed',
    error: {
      code: 'INVALID_RESULT',
      message: `the agent's ${type} result does not match the contract${at}: ${result.message}`,
    },
  };
}

/** A stored operation's result as recorded (its `reportedAt` set). */
function recordedOf(stored: StoredOperation): RecordedResult {
  return {
    id: stored.id,
    outcome: stored.state === 'failed' ? 'failed' : 'succeeded',
    result: stored.result ?? undefined,
    error: stored.error,
  };
}

/** Why a repeat of the operation is unsafe; a payload that no longer checks is not repeated blindly. */
function repeatRisk(operation: Sendable): string | undefined {
  const call = operationCallSchema.safeParse({
    type: operation.type,
    payload: JSON.parse(operation.payload),
  });
  return call.success ? unrepeatableReason(call.data) : 'its stored payload does not match its type';
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

/** An operation as sent to an agent. */
interface Sendable {
  id: string;
  type: OperationType;
  account: string;
  /** JSON text. */
  payload: string;
  deadline: Date;
  /** A repeat of an unsafe operation: the agent answers only with a run it has (repeat-policy.ts). */
  resumeOnly?: boolean;
}

/**
 * Where a waited-for operation went: a session of this replica (sent again if that session ends),
 * another replica (which watches its own sessions), or unknown (sent by a process that has since
 * stopped: sent again to a session of this replica as soon as one serves the account). `agentId` is
 * the agent the operation's row names, once it does: the one whose report the row will take.
 */
type SentTo = { session: string; agentId?: string } | 'remote' | 'unknown';

/** Sent to the session, whose agent the operation's row names; none here: another replica's. */
const sentToSession = (session: AgentSession | undefined): SentTo =>
  session === undefined ? 'remote' : { session: session.sessionId, agentId: session.agentId };

interface Waiter {
  operation: Sendable;
  sentTo: SentTo;
  resolve(recorded: RecordedResult): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class OperationDispatcher {
  readonly #deps: OperationDispatcherDeps;
  readonly #waiting = new Map<string, Waiter>();
  /** Rows of operations sent while they were being written (idStoredByCaller), until written. */
  readonly #writing = new Map<string, Promise<void>>();

  constructor(deps: OperationDispatcherDeps) {
    this.#deps = deps;
    deps.registry.onChange(() => {
      this.#sessionsChanged().catch((error: unknown) =>
        deps.logger.error({ err: error }, 'cannot send again the operations of an ended session'),
      );
    });
  }

  /** Whether a session here or on another replica serves the account. */
  async serves(account: string): Promise<boolean> {
    if (this.#deps.registry.sessionFor(account) !== undefined) return true;
    return (await this.#deps.router?.holderOf(account)) !== undefined;
  }

  async execute<T extends OperationType>(request: OperationRequest<T>): Promise<OperationOutcome<T>> {
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
    const operation = { id, type: request.type, account: request.account, payload, deadline };
    const row = { ...operation, agentId: target.agentId };
    if (session !== undefined && request.idStoredByCaller === true) {
      return this.#sendWhileWriting(session, row, operation, request.type);
    }
    await store.operations.create(row, now());
    const sentTo = sentToSession(session);
    const result = this.#wait(operation, sentTo, target.resultRetryWindowMs).then((recorded) =>
      this.#settle(request.type, recorded),
    );
    if (session !== undefined) this.#send(session, operation);
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
   * Sends the operation to a session of this replica while its row is written: the agent's work
   * overlaps the write, which is otherwise on the operation's path (bench:ops-latency). Its result is
   * recorded only once the row is in (resultStorable). A row that cannot be written leaves the
   * outcome unknown: the operation may be running, so the caller's failure is OPERATION_UNRECORDED,
   * which a restart mends by sending it again under its id.
   */
  async #sendWhileWriting<T extends OperationType>(
    session: AgentSession,
    row: Parameters<OperationStore['create']>[0],
    operation: Sendable,
    type: T,
  ): Promise<OperationOutcome<T>> {
    const { id } = operation;
    const writing = this.#deps.store.operations.create(row, this.#deps.now());
    this.#writing.set(id, writing);
    const waiting = this.#wait(operation, sentToSession(session), session.resultRetryWindowMs);
    this.#send(session, operation);
    try {
      await writing;
    } catch (error) {
      const waiter = this.#waiting.get(id);
      if (waiter !== undefined) {
        clearTimeout(waiter.timer);
        this.#waiting.delete(id);
      }
      throw new CloudctlError(
        'OPERATION_UNRECORDED',
        `operation ${id} (${type} on ${operation.account}) went to the agent, but cloudctl could not store it: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    } finally {
      this.#writing.delete(id);
    }
    return this.#settle(type, await waiting);
  }

  /**
   * Resolves once the operation's row can take its result: at once, unless the operation was sent
   * while its row was being written (then when written; rejects if it could not be).
   */
  resultStorable(id: string): Promise<void> {
    return this.#writing.get(id) ?? Promise.resolve();
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
    if (stored.call === null) {
      logger.error(
        { operationId, type: stored.type },
        'routed operation: its stored payload does not match its type',
      );
      return;
    }
    this.#send(session, {
      id: stored.id,
      type: stored.call.type,
      account: stored.account,
      payload: JSON.stringify(stored.call.payload),
      deadline: stored.deadline,
    });
  }

  #send(session: AgentSession, operation: Sendable, message = 'operation sent'): void {
    const sent = session.send({
      operation: {
        id: operation.id,
        type: operation.type,
        account: operation.account,
        payload: Buffer.from(operation.payload),
        deadline: toTimestamp(operation.deadline),
        resumeOnly: operation.resumeOnly === true,
      },
    });
    this.#deps.logger.debug(
      { operationId: operation.id, type: operation.type, account: operation.account, sent },
      message,
    );
  }

  /**
   * Waits for the result of an operation sent earlier, perhaps by a process that has since stopped:
   * its result may already be stored, or come in until the operation's deadline.
   */
  async await<T extends OperationType>(id: string, type: T): Promise<OperationOutcome<T>> {
    const stored = await this.#stored(id, type);
    // The window of the agent's current session: the one that took the operation may be gone.
    const graceMs = this.#deps.registry.newestSessionOf(stored.agentId)?.resultRetryWindowMs ?? 0;
    const operation: Sendable = {
      id,
      type,
      account: stored.account,
      payload: JSON.stringify(stored.call.payload),
      deadline: stored.deadline,
    };
    const waiting = this.#wait(operation, 'unknown', graceMs);
    // The result may have been stored between the read above and the wait starting: look again.
    const again = await this.#deps.store.operations.get(id);
    if (again?.reportedAt != null) {
      this.resultRecorded(recordedOf(again));
    } else {
      await this.#sessionsChanged();
    }
    return this.#settle(type, await waiting);
  }

  /**
   * Sends again, under its id and with a new deadline, an operation whose outcome is unknown (its
   * wait timed out while its agent was away; a task restarted): an agent process that still has it
   * answers with that run, a new one runs it again, and one not safe to repeat goes resume-only, as
   * when a session ends. A result recorded meanwhile is taken as it is, and nothing is sent. Throws
   * AGENT_NOT_CONNECTED, sending nothing, when no agent serves the account.
   */
  async resend<T extends OperationType>(id: string, type: T): Promise<OperationOutcome<T>> {
    const { registry, store, now } = this.#deps;
    const stored = await this.#stored(id, type);
    if (stored.reportedAt !== null) return this.#settle(type, recordedOf(stored));
    const session = registry.sessionFor(stored.account);
    const remote = session === undefined ? await this.#deps.router?.holderOf(stored.account) : undefined;
    const target = session ?? remote;
    if (target === undefined) {
      throw new CloudctlError('AGENT_NOT_CONNECTED', `no connected agent serves account ${stored.account}`);
    }
    const operation: Sendable = {
      id,
      type,
      account: stored.account,
      payload: JSON.stringify(stored.call.payload),
      deadline: new Date(now().getTime() + this.#deps.waitTimeoutMs),
    };
    const unsafe = repeatRisk(operation);
    // Another replica's delivery sends an operation as new: one not safe to repeat is not sent there.
    if (session === undefined && unsafe !== undefined) {
      throw new CloudctlError(
        'OPERATION_FAILED',
        `operation ${id}: ${unsafe}; its agent is connected to another replica, which would run it as new`,
      );
    }
    if (!(await store.operations.reopen(id, target.agentId, operation.deadline))) {
      return this.#settle(type, recordedOf(await this.#stored(id, type)));
    }
    // A wait left by an earlier run of the task gives way to this one.
    const earlier = this.#waiting.get(id);
    if (earlier !== undefined) {
      clearTimeout(earlier.timer);
      this.#waiting.delete(id);
      earlier.reject(new CloudctlError('OPERATION_FAILED', `operation ${id} was sent again`));
    }
    const sentTo = sentToSession(session);
    const waiting = this.#wait(operation, sentTo, target.resultRetryWindowMs);
    if (session !== undefined) {
      this.#deps.logger.info(
        { operationId: id, type, account: stored.account, agentId: session.agentId, resumeOnly: unsafe },
        'operation sent again: its task was restarted',
      );
      this.#send(session, { ...operation, resumeOnly: unsafe !== undefined }, 'operation sent again');
    } else if (remote !== undefined) await this.#deps.router?.route(remote, id);
    return this.#settle(type, await waiting);
  }

  /** The stored operation `id`, which must be a `type` whose payload still matches it. */
  async #stored(id: string, type: OperationType) {
    const stored = await this.#deps.store.operations.get(id);
    if (stored === undefined) throw new CloudctlError('OPERATION_FAILED', `operation ${id} was never sent`);
    if (stored.type !== type || stored.call === null)
      throw new CloudctlError(
        'OPERATION_FAILED',
        stored.type !== type
          ? `operation ${id} is a ${stored.type}, not a ${type}`
          : `operation ${id}: its stored payload does not match its type ${type}`,
      );
    return { ...stored, call: stored.call };
  }

  /**
   * Sessions came or went: each waited-for operation whose session ended (or that an earlier process
   * sent) goes again, with its id, to the session now serving its account. An operation that is not
   * safe to repeat goes as resume-only: the agent answers with the run it has, or NOT_STARTED.
   */
  async #sessionsChanged(): Promise<void> {
    const { registry } = this.#deps;
    for (const waiter of [...this.#waiting.values()]) {
      const { sentTo, operation } = waiter;
      if (sentTo === 'remote') continue;
      if (sentTo !== 'unknown' && registry.session(sentTo.session) !== undefined) continue;
      const session = registry.sessionFor(operation.account);
      if (session === undefined) continue;
      // Taken before the await: a second change meanwhile must not send it twice.
      waiter.sentTo = { session: session.sessionId };
      // A row still being written is reassigned once it is in (a failed write fails its sender).
      const stored = await this.resultStorable(operation.id).then(
        () => true,
        () => false,
      );
      if (!stored) continue;
      if (!(await this.#deps.store.operations.reassign(operation.id, session.agentId))) continue;
      if (this.#waiting.get(operation.id) === waiter) {
        waiter.sentTo = sentToSession(session);
      }
      const unsafe = repeatRisk(operation);
      this.#deps.logger.info(
        {
          operationId: operation.id,
          type: operation.type,
          account: operation.account,
          agentId: session.agentId,
          ...(unsafe === undefined ? {} : { resumeOnly: unsafe }),
        },
        'operation sent again: the session that took it ended before its result',
      );
      this.#send(session, { ...operation, resumeOnly: unsafe !== undefined }, 'operation sent again');
    }
  }

  /**
   * Waits until the deadline and then `graceMs` more: the agent's result retry window
   * (`cloudctl.responseRetries`), so a result produced just before the deadline and delivered on a
   * retry still finds its waiter. The agent starts no work past the deadline itself.
   */
  #wait(operation: Sendable, sentTo: SentTo, graceMs: number): Promise<RecordedResult> {
    const { store, logger, now } = this.#deps;
    const { id, type, account, deadline } = operation;
    return new Promise<RecordedResult>((resolve, reject) => {
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
        operation,
        sentTo,
        resolve,
        reject,
        timer,
      });
    });
  }

  /** The outcome its caller gets, counted as that caller sees it (an off-contract result as failed). */
  #settle<T extends OperationType>(type: T, recorded: RecordedResult): OperationOutcome<T> {
    const outcome = settle(type, recorded);
    this.#deps.onOutcome?.(type, outcome.outcome);
    return outcome;
  }

  /**
   * Hands a reported result to whoever waits for it here before it is recorded, when the reporting
   * agent is the one the operation's row names (so the record cannot refuse it): the waiting task's
   * own writes need not queue behind the record's (bench:ops-latency). The agent is still answered
   * only once the result is recorded, and sends it again until then. True when a waiter took it.
   */
  resultReported(agentId: string, reported: RecordedResult): boolean {
    const waiter = this.#waiting.get(reported.id);
    if (waiter === undefined || typeof waiter.sentTo === 'string' || waiter.sentTo.agentId !== agentId) {
      return false;
    }
    this.#hand(waiter, reported);
    return true;
  }

  /** Ends a wait with its result. */
  #hand(waiter: Waiter, recorded: RecordedResult): void {
    this.#waiting.delete(recorded.id);
    clearTimeout(waiter.timer);
    waiter.resolve(recorded);
  }

  /** Called once a result is recorded: hands it to whoever waits for it, here or on another replica. */
  resultRecorded(outcome: RecordedResult): void {
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
    this.#hand(waiter, outcome);
  }

  /** Another replica stored the result of an operation: if it is waited for here, reads and hands it on. */
  async resultStoredElsewhere(operationId: string): Promise<void> {
    if (!this.#waiting.has(operationId)) return;
    const stored = await this.#deps.store.operations.get(operationId);
    if (stored?.reportedAt == null) return;
    const waiter = this.#waiting.get(operationId);
    if (waiter !== undefined) this.#hand(waiter, recordedOf(stored));
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
