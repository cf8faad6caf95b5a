// The internal API for work on a cluster: send an operation to the agent serving the account and
// wait for its result. Used by tests now, by the REST API and the deployment service later. The
// operation is stored before it is sent, so a result reported after a reconnect still finds it.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { toTimestamp } from '../../proto/index.ts';
import { CloudctlError } from '../errors.ts';
import type { AgentRegistry } from '../sessions/index.ts';
import type { CloudctlStore } from '../store/index.ts';

export interface OperationRequest {
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
  store: CloudctlStore;
  logger: Logger;
  now: () => Date;
  waitTimeoutMs: number;
  newId?: () => string;
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

  async execute(request: OperationRequest): Promise<OperationOutcome> {
    const { registry, store, logger, now } = this.#deps;
    const session = registry.sessionFor(request.account);
    if (session === undefined) {
      throw new CloudctlError('AGENT_NOT_CONNECTED', `no connected agent serves account ${request.account}`);
    }
    const id = (this.#deps.newId ?? randomUUID)();
    const timeoutMs = request.timeoutMs ?? this.#deps.waitTimeoutMs;
    const deadline = new Date(now().getTime() + timeoutMs);
    const payload = JSON.stringify(request.payload ?? null);
    await store.operations.create(
      { id, account: request.account, agentId: session.agentId, type: request.type, payload, deadline },
      now(),
    );
    const result = new Promise<OperationOutcome>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        store.operations
          .markTimedOut(id)
          .catch((error: unknown) =>
            logger.error({ err: error, operationId: id }, 'cannot mark operation timed out'),
          );
        reject(
          new CloudctlError(
            'OPERATION_TIMEOUT',
            `operation ${id} (${request.type} on ${request.account}) had no result after ${timeoutMs} ms`,
          ),
        );
      }, timeoutMs);
      this.#waiting.set(id, { resolve, reject, timer });
    });
    const sent = session.send({
      operation: {
        id,
        type: request.type,
        account: request.account,
        payload: Buffer.from(payload),
        deadline: toTimestamp(deadline),
      },
    });
    logger.debug({ operationId: id, type: request.type, account: request.account, sent }, 'operation sent');
    return result;
  }

  /** Called once a result is recorded: hands it to whoever waits for it (nobody, after a timeout). */
  resultRecorded(outcome: OperationOutcome): void {
    const waiter = this.#waiting.get(outcome.id);
    if (waiter === undefined) return;
    this.#waiting.delete(outcome.id);
    clearTimeout(waiter.timer);
    waiter.resolve(outcome);
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
