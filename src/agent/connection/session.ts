// One `AgentSession.Connect` stream: hello, then heartbeats up and whatever comes down, until the
// stream ends or a keep-alive rule ends it. A session never reconnects by itself; the connection
// decides what happens after `onEnded`.
//
// Keep-alive rules (docs/decisions.md, "Heartbeat miss"):
// - every `heartbeatMs` the agent sends a heartbeat;
// - a heartbeat answer is missed when nothing at all (a heartbeat, an operation, anything) has come
//   down for `silenceLimitMs` (keepAliveTimeOutSeconds, or twice the heartbeat period): the stream
//   is then presumed dead and the session ends with `heartbeat_missed`;
// - with `operationIdleMs`, a session that received no operation for that long ends with
//   `operation_idle` (keepAliveOperationSeconds, variant B).
import { type ClientDuplexStream, status as grpcStatus, type Metadata } from '@grpc/grpc-js';
import {
  type AgentMessage,
  type AgentSessionClient,
  type ControlMessage__Output,
  type Hello,
  type Operation__Output,
  toTimestamp,
} from '../../proto/index.ts';

/**
 * Why a session ended (the `reason` label of orch_agent_disconnects_total): one of
 * SESSION_END_REASONS, or the gRPC status the stream ended with, lower case (`unavailable`,
 * `unauthenticated`, ...).
 */
export const SESSION_END_REASONS = [
  'server_closed',
  'heartbeat_missed',
  'operation_idle',
  'handshake_timeout',
  'stopped',
] as const;
export type SessionEndReason = (typeof SESSION_END_REASONS)[number] | (string & {});

export interface SessionEnd {
  reason: SessionEndReason;
  detail: string;
  /** Whether `registered` had arrived. */
  registered: boolean;
}

/** What the control plane asks the agent to cache of one account (proto CacheDirective). */
export interface AccountCacheDirective {
  account: string;
  enabled: boolean;
  kinds: string[];
  omitKinds: string[];
}

export interface RegisteredInfo {
  sessionId: string;
  cache: AccountCacheDirective[];
}

export interface SessionHandlers {
  onRegistered(info: RegisteredInfo): void;
  onOperation(operation: Operation__Output): void;
  /** `cache` is absent when the assignment carries no directive. */
  onAddAccounts(accounts: Array<{ name: string; definition: Buffer; cache?: AccountCacheDirective }>): void;
  onDeleteAccounts(names: string[]): void;
  onCacheDirectives(directives: AccountCacheDirective[]): void;
  onEnded(end: SessionEnd): void;
}

export interface SessionOptions {
  client: AgentSessionClient;
  metadata: Metadata;
  hello: Hello;
  /** 0: no heartbeats and no silence limit. */
  heartbeatMs: number;
  silenceLimitMs: number;
  /** 0: never restart for want of operations. */
  operationIdleMs: number;
  /** 0: wait for `registered` as long as the stream lives. */
  handshakeTimeoutMs: number;
  handlers: SessionHandlers;
}

function directiveOf(c: AccountCacheDirective): AccountCacheDirective {
  return { account: c.account, enabled: c.enabled, kinds: c.kinds, omitKinds: c.omitKinds };
}

function statusReason(code: number): SessionEndReason {
  const name: string | undefined = grpcStatus[code];
  return name === undefined ? 'unknown' : name.toLowerCase();
}

export class Session {
  readonly #options: SessionOptions;
  #call: ClientDuplexStream<AgentMessage, ControlMessage__Output> | undefined;
  #registered = false;
  #ended = false;
  #heartbeatSequence = 0;
  #heartbeatTimer: NodeJS.Timeout | undefined;
  #silenceTimer: NodeJS.Timeout | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #handshakeTimer: NodeJS.Timeout | undefined;

  constructor(options: SessionOptions) {
    this.#options = options;
  }

  get registered(): boolean {
    return this.#registered;
  }

  /** Heartbeats sent on this session so far. */
  get heartbeatsSent(): number {
    return this.#heartbeatSequence;
  }

  open(): void {
    const { client, metadata, hello, handshakeTimeoutMs } = this.#options;
    const call = client.Connect(metadata);
    this.#call = call;
    // 'status' carries the outcome; 'error' repeats it and must have a listener.
    call.on('error', () => undefined);
    call.on('status', (s) => {
      const reason = s.code === grpcStatus.OK ? 'server_closed' : statusReason(s.code);
      this.#end(reason, s.details);
    });
    call.on('end', () => this.#end('server_closed', 'the control plane ended the session'));
    call.on('data', (message: ControlMessage__Output) => this.#receive(message));
    if (handshakeTimeoutMs > 0) {
      this.#handshakeTimer = setTimeout(
        () => this.#end('handshake_timeout', `no registered answer within ${handshakeTimeoutMs} ms`),
        handshakeTimeoutMs,
      );
    }
    call.write({ hello });
  }

  /** Sends a message up; false when the stream is gone (the caller keeps it for the next session). */
  send(message: AgentMessage): boolean {
    const call = this.#call;
    if (call === undefined || this.#ended || !this.#registered || call.destroyed || !call.writable)
      return false;
    call.write(message);
    return true;
  }

  /** Ends the session from the agent's side. */
  close(reason: SessionEndReason, detail: string): void {
    this.#end(reason, detail);
  }

  #receive(message: ControlMessage__Output): void {
    if (this.#ended) return;
    this.#armSilence();
    switch (message.message) {
      case 'registered': {
        if (this.#registered || message.registered == null) return;
        this.#registered = true;
        clearTimeout(this.#handshakeTimer);
        this.#startKeepAlive();
        this.#options.handlers.onRegistered({
          sessionId: message.registered.sessionId,
          cache: message.registered.cache.map(directiveOf),
        });
        return;
      }
      case 'operation':
        if (message.operation == null) return;
        this.#armIdle();
        this.#options.handlers.onOperation(message.operation);
        return;
      case 'addAccounts':
        if (message.addAccounts == null) return;
        this.#options.handlers.onAddAccounts(
          message.addAccounts.accounts.map((a) => ({
            name: a.name,
            definition: a.definition,
            ...(a.cache == null ? {} : { cache: directiveOf({ ...a.cache, account: a.name }) }),
          })),
        );
        return;
      case 'cacheDirectives':
        if (message.cacheDirectives == null) return;
        this.#options.handlers.onCacheDirectives(message.cacheDirectives.directives.map(directiveOf));
        return;
      case 'deleteAccounts':
        if (message.deleteAccounts == null) return;
        this.#options.handlers.onDeleteAccounts(message.deleteAccounts.names);
        return;
      default:
        // heartbeat: liveness only (armSilence above); unknown members: ignored, as proto3 peers do.
        return;
    }
  }

  #startKeepAlive(): void {
    const { heartbeatMs } = this.#options;
    if (heartbeatMs > 0) {
      this.#heartbeatTimer = setInterval(() => {
        this.send({
          heartbeat: { sequence: String(++this.#heartbeatSequence), sentAt: toTimestamp(new Date()) },
        });
      }, heartbeatMs);
    }
    this.#armSilence();
    this.#armIdle();
  }

  #armSilence(): void {
    const { heartbeatMs, silenceLimitMs } = this.#options;
    if (heartbeatMs <= 0 || !this.#registered) return;
    clearTimeout(this.#silenceTimer);
    this.#silenceTimer = setTimeout(
      () => this.#end('heartbeat_missed', `nothing from the control plane for ${silenceLimitMs} ms`),
      silenceLimitMs,
    );
  }

  #armIdle(): void {
    const { operationIdleMs } = this.#options;
    if (operationIdleMs <= 0 || !this.#registered) return;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(
      () => this.#end('operation_idle', `no operation for ${operationIdleMs} ms`),
      operationIdleMs,
    );
  }

  #end(reason: SessionEndReason, detail: string): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#handshakeTimer);
    clearInterval(this.#heartbeatTimer);
    clearTimeout(this.#silenceTimer);
    clearTimeout(this.#idleTimer);
    this.#call?.cancel();
    this.#options.handlers.onEnded({ reason, detail, registered: this.#registered });
  }
}
