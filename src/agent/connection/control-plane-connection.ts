// The agent's connection to cloudctl: one channel per attempt, one session per channel, reconnects
// paced by the reconnect policy, and the result outbox that outlives sessions. The state machine in
// connection-state.ts is the single truth about where the connection stands; everything else
// (metrics, readiness, the outbox) follows its transitions.
import { type CallOptions, type ChannelCredentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { Backoff } from '../../lib/backoff.ts';
import type { Log } from '../../lib/log.ts';
import { causeOf } from '../../lib/log-cause.ts';
import {
  type AgentSessionClient,
  type CachingClient,
  fromTimestamp,
  loadContract,
  type Operation__Output,
  type OperationResult as OperationResultMessage,
  type OperationResultsClient,
} from '../../proto/index.ts';
import { type AgentConfig, reconnectBackoff } from '../config/index.ts';
import type { AgentMetrics, ConnectionStateName, HealthCheck } from '../observability/index.ts';
import type { Operation, OperationResult } from '../operations/index.ts';
import { type ChannelPlan, channelPlan } from './channel-options.ts';
import { ConnectionState, type StateListener } from './connection-state.ts';
import { channelCredentials } from './credentials.ts';
import type { Environment } from './proxy-env.ts';
import { helloMessage, type Registration, resultRetryWindowMs } from './registration.ts';
import { ResultOutbox } from './result-outbox.ts';
import { type AccountCacheDirective, type RegisteredInfo, Session, type SessionEnd } from './session.ts';
import { sessionTiming } from './session-timing.ts';
import { TokenSource } from './token-source.ts';

const DEFAULT_OUTBOX_CAPACITY = 10_000;
/** Operation ids whose account is remembered for their result. */
const REMEMBERED_OPERATIONS = 10_000;

/** The largest result one message carries: gRPC's 4 MiB that cloudctl accepts, less room for the rest. */
const MAX_RESULT_BYTES = 3.5 * 1024 * 1024;
const mebibytes = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** An account's cluster as the agent reached it, reported with ACTIVE. */
export interface AccountCluster {
  apiServerHost: string;
  kubernetesVersion: string;
}

type ReportedStatus = { account: string; state: AccountState; message: string } & Partial<AccountCluster>;

export type AccountState = 'ACTIVE' | 'FAILED';

/** What the control plane sends the agent, and who takes it: given at construction or by serve(). */
export interface ControlPlaneInbound {
  onOperation?: (operation: Operation) => void;
  /**
   * Dynamic accounts assigned on the fly; `definition` is the parsed JSON account entry, `cache` its
   * directive when the assignment has one.
   */
  onAddAccounts?: (
    accounts: Array<{ name: string; definition: unknown; cache?: AccountCacheDirective }>,
  ) => void;
  onDeleteAccounts?: (names: string[]) => void;
  /** New cache directives for accounts the agent holds (cache_directives). */
  onCacheDirectives?: (directives: AccountCacheDirective[]) => void;
  /** Each registered session, with the control plane's cache directives; called before `connected`. */
  onRegistered?: (info: RegisteredInfo) => void;
}

export interface ControlPlaneConnectionOptions extends ControlPlaneInbound {
  config: AgentConfig;
  /** The agent's release, sent in hello. */
  version: string;
  /** Called before each hello: who the agent is and the accounts it serves now. */
  registration: () => Registration | Promise<Registration>;
  logger: Log;
  metrics: AgentMetrics;
  /** Proxy variables are read from here; process.env by default. */
  env?: Environment;
  now?: () => number;
  /** Jitter source of the reconnect backoff; uniform in [0, 1). */
  random?: () => number;
  outboxCapacity?: number;
}

export class ControlPlaneConnection {
  readonly #options: ControlPlaneConnectionOptions;
  readonly #log: Log;
  readonly #now: () => number;
  readonly #state: ConnectionState;
  readonly #tokens: TokenSource;
  readonly #backoff: Backoff;
  readonly #outbox: ResultOutbox;
  readonly #plan: ChannelPlan;
  /** Latest status per account, sent again at the start of every session. */
  readonly #accountStatus = new Map<string, ReportedStatus>();
  readonly #operationAccounts = new Map<string, string>();
  #credentials: ChannelCredentials | undefined;
  #sessionClient: AgentSessionClient | undefined;
  #resultsClient: OperationResultsClient | undefined;
  #cachingClient: CachingClient | undefined;
  #session: Session | undefined;
  /**
   * The reason and detail of the last failed attempt, until a session registers: the same failure
   * again is logged at DEBUG, so an outage of the control plane is one WARN line, not one per retry.
   */
  #failing: string | undefined;

  #inbound: ControlPlaneInbound;

  constructor(options: ControlPlaneConnectionOptions) {
    this.#options = options;
    this.#inbound = options;
    const settings = options.config.cloudctl;
    this.#log = options.logger.child({ component: 'connection', cloudctl: settings.grpc });
    this.#now = options.now ?? Date.now;
    this.#state = new ConnectionState(options.metrics, this.#now);
    this.#tokens = new TokenSource(settings.auth, { logger: this.#log });
    this.#backoff = new Backoff(() => void this.#attempt(), {
      ...reconnectBackoff(options.config),
      ...(options.random === undefined ? {} : { random: options.random }),
    });
    this.#plan = channelPlan(settings, options.env ?? process.env);
    const retries = settings.responseRetries;
    this.#outbox = new ResultOutbox({
      enabled: retries.enabled,
      maxRetries: retries.maxRetries,
      backOffMs: retries.backOffMs,
      capacity: options.outboxCapacity ?? DEFAULT_OUTBOX_CAPACITY,
      deliver: (message) => this.#deliver(message),
      logger: this.#log,
      onGiveUp: () => options.metrics.resultsUndelivered.inc(),
    });
  }

  get state(): ConnectionStateName {
    return this.#state.current;
  }

  /** Listens to every transition; returns what removes the listener. */
  onStateChange(listener: StateListener): () => void {
    return this.#state.onChange(listener);
  }

  /** For HealthChecks.register: ready only while a session is registered. */
  readinessCheck(): HealthCheck {
    return {
      name: 'control-plane',
      kind: 'readiness',
      check: () => {
        const state = this.#state.current;
        const since = new Date(this.#state.since).toISOString();
        return state === 'connected'
          ? { ok: true, message: `connected to ${this.#options.config.cloudctl.grpc} since ${since}` }
          : { ok: false, message: `control plane connection ${state} since ${since}` };
      },
    };
  }

  /**
   * Who takes what the control plane sends, for a composition root that builds its takers (the
   * accounts, the executor) after the connection they report through. Before start().
   */
  serve(inbound: ControlPlaneInbound): void {
    this.#inbound = inbound;
  }

  /**
   * Reads the TLS files (a wrong path or key password throws a ConnectionError naming the setting)
   * and starts connecting; resolves without waiting for the first session.
   */
  async start(): Promise<void> {
    if (this.#state.current !== 'idle') throw new Error(`start() in state ${this.#state.current}`);
    this.#credentials = await channelCredentials(this.#options.config.cloudctl);
    const proxy = this.#plan.proxy;
    if (proxy !== undefined)
      this.#log.info({ proxy: proxy.address, from: proxy.variable }, 'connecting through HTTP proxy');
    void this.#attempt();
  }

  /** Ends the session and the channel; undelivered results are logged and counted. */
  async stop(): Promise<void> {
    if (this.#state.current === 'stopped') return;
    this.#state.to('stopped');
    this.#backoff.stop();
    this.#tokens.stop();
    this.#session?.close('stopped', 'the agent is stopping');
    this.#outbox.stop();
    this.#closeChannel();
  }

  /**
   * Queues a result; it is delivered per cloudctl.responseRetries, across reconnects. A result too
   * large for one message (gRPC's 4 MiB, which cloudctl keeps) is replaced by a RESULT_TOO_LARGE
   * failure: sent as it is, it would be refused at every attempt and the operation would wait for
   * its timeout with no word of why.
   */
  reportResult(result: OperationResult, account?: string): void {
    const body = result.result === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(result.result));
    const tooLarge = body.length > MAX_RESULT_BYTES;
    if (tooLarge)
      this.#log.warn(
        { operationId: result.id, resultBytes: body.length, limitBytes: MAX_RESULT_BYTES },
        'operation result too large to send; reported as failed',
      );
    const error = tooLarge
      ? {
          code: 'RESULT_TOO_LARGE' as const,
          message: `the result is ${mebibytes(body.length)} MiB of JSON, more than the ${mebibytes(MAX_RESULT_BYTES)} MiB one result may carry; ask for less (a namespace, a label selector)`,
        }
      : result.error;
    this.#outbox.add({
      operationId: result.id,
      account: account ?? this.#operationAccounts.get(result.id) ?? '',
      outcome: result.ok && !tooLarge ? 'SUCCEEDED' : 'FAILED',
      result: tooLarge ? Buffer.alloc(0) : body,
      error: error?.message ?? '',
      errorCode: error?.code ?? '',
      errorPath: error?.path ?? '',
    });
  }

  /**
   * Sent now when connected, and again at the start of every later session (latest per account).
   * `cluster`, with ACTIVE: the API server the account reached, which cloudctl shows (a dynamic
   * account has no hello to carry it).
   */
  reportAccountStatus(name: string, state: AccountState, message = '', cluster?: AccountCluster): void {
    const status: ReportedStatus = { account: name, state, message, ...cluster };
    this.#accountStatus.set(name, status);
    this.#session?.send({ accountStatus: status });
  }

  /**
   * REFUSED, sent once: the answer to one assignment, not a state of an account the agent holds (a
   * static account of that name keeps its own status). Without a session it is not kept: the control
   * plane assigns again at the next registration and gets the answer then.
   */
  refuseAccount(name: string, message: string): void {
    this.#session?.send({ accountStatus: { account: name, state: 'REFUSED', message } });
  }

  /** An account the agent no longer holds: its last status is not sent again. */
  forgetAccount(name: string): void {
    this.#accountStatus.delete(name);
  }

  /** Results queued and not yet delivered or given up. */
  get pendingResults(): number {
    return this.#outbox.pending;
  }

  /** Results given up on: retries exhausted, refused, outbox full, or still queued at stop. */
  get undeliveredResults(): number {
    return this.#outbox.undelivered;
  }

  /** Waits until every queued result is delivered or given up; false on timeout. */
  flushResults(timeoutMs: number): Promise<boolean> {
    return this.#outbox.drained(timeoutMs);
  }

  /** Metadata for a call to the control plane: the current bearer token, if any. */
  async callMetadata(): Promise<Metadata> {
    const metadata = new Metadata();
    const token = await this.#tokens.token();
    // Attached per call: grpc-js refuses call credentials on plaintext channels.
    if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
    return metadata;
  }

  /** Options of a unary call: the `timeoutSeconds` deadline (none for 0). */
  unaryCallOptions(): CallOptions {
    const seconds = this.#options.config.timeoutSeconds;
    return seconds > 0 ? { deadline: this.#now() + seconds * 1000 } : {};
  }

  async #attempt(): Promise<void> {
    if (this.#state.current === 'stopped') return;
    this.#state.to('connecting');
    const credentials = this.#credentials;
    if (credentials === undefined) throw new Error('attempt before start()');
    this.#openChannel(credentials);
    let metadata: Metadata;
    let registration: Registration;
    try {
      metadata = await this.callMetadata();
      registration = await this.#options.registration();
    } catch (error) {
      if (this.#stopped()) return;
      this.#log.error({ cause: causeOf(error) }, 'cannot prepare the session');
      this.#scheduleReconnect();
      return;
    }
    const client = this.#sessionClient;
    if (this.#state.current !== 'connecting' || client === undefined) return;
    const session: Session = new Session({
      client,
      metadata,
      hello: helloMessage(
        registration,
        this.#options.version,
        resultRetryWindowMs(this.#options.config.cloudctl.responseRetries),
      ),
      ...sessionTiming(this.#options.config),
      handlers: {
        onRegistered: (info) => this.#registered(session, info),
        onOperation: (operation) => this.#receiveOperation(operation),
        onAddAccounts: (accounts) => this.#addAccounts(accounts),
        onDeleteAccounts: (names) => this.#inbound.onDeleteAccounts?.(names),
        onCacheDirectives: (directives) => this.#inbound.onCacheDirectives?.(directives),
        onEnded: (end) => this.#ended(session, end),
      },
    });
    this.#session = session;
    session.open();
  }

  /** A method, not a field read: the state may change across an await. */
  #stopped(): boolean {
    return this.#state.current === 'stopped';
  }

  #registered(session: Session, info: RegisteredInfo): void {
    if (this.#session !== session || this.#state.current !== 'connecting') return;
    // Before the state changes: what starts on `connected` (the watches) finds the session's cache
    // directives already in force, so an account it says not to cache is never listed.
    try {
      this.#inbound.onRegistered?.(info);
    } catch (error) {
      this.#log.error({ err: error }, 'onRegistered failed');
    }
    this.#state.to('connected');
    this.#options.metrics.connects.inc();
    this.#backoff.reset();
    this.#failing = undefined;
    this.#log.info({ sessionId: info.sessionId }, 'session registered with the control plane');
    for (const status of this.#accountStatus.values()) session.send({ accountStatus: status });
    this.#outbox.connected();
  }

  #ended(session: Session, end: SessionEnd): void {
    if (this.#session !== session) return;
    this.#session = undefined;
    this.#outbox.disconnected();
    if (end.registered) this.#options.metrics.disconnects.inc({ reason: end.reason });
    if (this.#state.current === 'stopped') return;
    const fields = { reason: end.reason, detail: end.detail };
    if (end.reason === 'operation_idle') {
      // A deliberate restart of a healthy connection: reconnect at once, no backoff.
      this.#log.info(fields, 'restarting the session: no operations within keepAliveOperationSeconds');
      void this.#attempt();
      return;
    }
    if (end.reason === 'unauthenticated' || end.reason === 'permission_denied') {
      this.#log.error(
        fields,
        'the control plane refused the agent (check cloudctl.auth and the client certificate)',
      );
    } else if (end.registered) {
      this.#log.warn(fields, 'session with the control plane ended');
    } else {
      const failure = `${end.reason}\u0000${end.detail}`;
      if (failure === this.#failing) this.#log.debug(fields, 'cannot open a session with the control plane');
      else this.#log.warn(fields, 'cannot open a session with the control plane');
      this.#failing = failure;
    }
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    this.#closeChannel();
    this.#state.to('backoff');
    const delayMs = this.#backoff.runOnce();
    const fields = { retryInMs: Math.round(delayMs) };
    // Retries of a failure already reported say nothing new: DEBUG, like the failures themselves.
    if (this.#failing === undefined) this.#log.info(fields, 'reconnecting to the control plane');
    else this.#log.debug(fields, 'reconnecting to the control plane');
  }

  #receiveOperation(operation: Operation__Output): void {
    this.#operationAccounts.set(operation.id, operation.account);
    for (const id of this.#operationAccounts.keys()) {
      if (this.#operationAccounts.size <= REMEMBERED_OPERATIONS) break;
      this.#operationAccounts.delete(id);
    }
    const fail = (code: 'INVALID_PAYLOAD' | 'DEADLINE_EXCEEDED', message: string) =>
      this.reportResult(
        { id: operation.id, ok: false, error: { code, message }, durationMs: 0 },
        operation.account,
      );
    let payload: unknown;
    try {
      payload = operation.payload.length === 0 ? undefined : JSON.parse(operation.payload.toString('utf8'));
    } catch {
      fail('INVALID_PAYLOAD', 'the operation payload is not JSON');
      return;
    }
    let deadlineMs: number | undefined;
    if (operation.deadline != null) {
      deadlineMs = Math.floor(fromTimestamp(operation.deadline).getTime() - this.#now());
      if (deadlineMs < 1) {
        fail('DEADLINE_EXCEEDED', 'the operation arrived after its deadline; not started');
        return;
      }
    }
    try {
      this.#inbound.onOperation?.({
        id: operation.id,
        type: operation.type,
        account: operation.account,
        payload,
        ...(deadlineMs === undefined ? {} : { deadlineMs }),
        ...(operation.resumeOnly ? { resumeOnly: true } : {}),
      });
    } catch (error) {
      this.#log.error({ err: error, operationId: operation.id }, 'onOperation failed');
    }
  }

  #addAccounts(accounts: Array<{ name: string; definition: Buffer; cache?: AccountCacheDirective }>): void {
    const parsed: Array<{ name: string; definition: unknown; cache?: AccountCacheDirective }> = [];
    for (const { definition, ...account } of accounts) {
      try {
        parsed.push({ ...account, definition: JSON.parse(definition.toString('utf8')) });
      } catch {
        this.#log.error(
          { account: account.name },
          'add_accounts: the account definition is not JSON; skipped',
        );
        this.reportAccountStatus(account.name, 'FAILED', 'invalid account definition: not JSON');
      }
    }
    this.#inbound.onAddAccounts?.(parsed);
  }

  #deliver(message: OperationResultMessage): Promise<void> {
    return this.callMetadata().then(
      (metadata) =>
        new Promise<void>((resolve, reject) => {
          const client = this.#resultsClient;
          if (client === undefined) {
            reject(new Error('no channel to the control plane'));
            return;
          }
          client.Report(message, metadata, this.unaryCallOptions(), (error: ServiceError | null) => {
            if (error === null) resolve();
            else reject(error);
          });
        }),
    );
  }

  /**
   * A fresh channel per attempt: our reconnect policy paces attempts, not grpc-js's own channel
   * backoff, and a restarted control plane is dialled at once.
   */
  #openChannel(credentials: ChannelCredentials): void {
    this.#closeChannel();
    const { v1 } = loadContract().proto.orchagent;
    const { target, options } = this.#plan;
    const session = new v1.AgentSession(target, credentials, options);
    this.#sessionClient = session;
    this.#resultsClient = new v1.OperationResults(target, credentials, {
      ...options,
      channelOverride: session.getChannel(),
    });
    this.#cachingClient = new v1.Caching(target, credentials, {
      ...options,
      channelOverride: session.getChannel(),
    });
  }

  /** The caching service on the current channel, for the watch uplink; undefined while disconnected. */
  cachingClient(): CachingClient | undefined {
    return this.#state.current === 'connected' ? this.#cachingClient : undefined;
  }

  #closeChannel(): void {
    this.#sessionClient?.close();
    this.#sessionClient = undefined;
    this.#resultsClient = undefined;
    this.#cachingClient = undefined;
  }
}
