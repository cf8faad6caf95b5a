// orchagent.v1.AgentSession: one long-lived stream per agent. Hello registers the agent and its
// accounts (in the store and the live registry); heartbeats flow both ways; operations go down
// through the registry's `send`; the session ends when the stream does.
import { randomUUID } from 'node:crypto';
import { type ServerDuplexStream, status } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import {
  type AccountStatus__Output,
  type AgentMessage__Output,
  type AgentSessionHandlers,
  type ControlMessage,
  type Hello__Output,
  toTimestamp,
} from '../../proto/index.ts';
import { type AgentAuthenticator, type Authentication, CREDENTIAL_WITHDRAWN } from '../auth/index.ts';
import { RpcFailure } from '../grpc/index.ts';
import type {
  AgentRegistry,
  AgentSession,
  DynamicAccountSettings,
  SessionAccount,
} from './agent-registry.ts';
import type { AgentStore } from './agent-store.ts';
import type { SessionListener } from './session-listener.ts';
import { handOverStaticAccounts, staticAccounts } from './static-account-handover.ts';

/** What the session service uses: passed in, so tests can drive the clock and read the logs. */
export interface SessionRpcDeps {
  authenticator: AgentAuthenticator;
  registry: AgentRegistry;
  /** Told of each session's life (dynamic accounts). */
  sessionListener: SessionListener;
  store: { agents: AgentStore };
  /**
   * Told of the accounts an agent's hello no longer lists (dropped from its file, or renamed) that no
   * other connected agent lists either: they have left cloudctl, and what was cached of them goes.
   */
  accountsDropped: (accounts: readonly string[]) => Promise<void>;
  logger: Logger;
  now: () => Date;
  heartbeatSeconds: number;
  helloTimeoutSeconds: number;
}

const METHOD = '/orchagent.v1.AgentSession/Connect';

type SessionCall = ServerDuplexStream<AgentMessage__Output, ControlMessage>;

type ProvenAgent = Extract<Authentication, { ok: true }>;

function accountsOf(hello: Hello__Output): SessionAccount[] {
  const seen = new Set<string>();
  return hello.accounts.map((account, index) => {
    if (account.name === '')
      throw new RpcFailure(status.INVALID_ARGUMENT, `hello.accounts[${index}]: empty name`);
    if (seen.has(account.name)) {
      throw new RpcFailure(status.INVALID_ARGUMENT, `hello.accounts[${index}]: ${account.name} listed twice`);
    }
    seen.add(account.name);
    return {
      name: account.name,
      permissions: { read: account.permissions?.read ?? [], write: account.permissions?.write ?? [] },
      apiServerHost: account.apiServerHost,
      kubernetesVersion: account.kubernetesVersion,
      // An agent that does not say is older than dynamic accounts: everything it has is its own.
      source: account.source === 'CLOUDCTL' ? 'cloudctl' : 'static-agent-config',
    };
  });
}

function dynamicAccountsOf(hello: Hello__Output): DynamicAccountSettings {
  const settings = hello.dynamicAccounts;
  return {
    enabled: settings?.enabled ?? false,
    interceptorEnabled: settings?.interceptorEnabled ?? false,
    scanBatchSize: settings?.scanBatchSize ?? 0,
    scanFrequencySeconds: settings?.scanFrequencySeconds ?? 0,
    namePatterns: settings?.namePatterns ?? [],
    credentialScanNamePatterns: settings?.credentialScanNamePatterns ?? [],
  };
}

/** The accounts the store records as the agent's own: those of its config file. */
/**
 * One agent's stream, from its hello to its end: registers the agent, answers with the accounts it
 * caches, keeps the heartbeat, and takes the reports that follow, one message at a time in order.
 */
class SessionStream {
  readonly #call: SessionCall;
  readonly #deps: SessionRpcDeps;
  readonly #agentId: string;
  /** What the agent proved itself with: a runtime credential is checked again at each heartbeat. */
  readonly #auth: ProvenAgent;
  readonly #sessionId = randomUUID();
  readonly #log: SessionRpcDeps['logger'];
  readonly #helloTimer: NodeJS.Timeout;
  #session: AgentSession | undefined;
  #heartbeatTimer: NodeJS.Timeout | undefined;
  #heartbeatSequence = 0;
  #closed = false;
  #queue: Promise<void> = Promise.resolve();

  constructor(call: SessionCall, deps: SessionRpcDeps, auth: ProvenAgent) {
    const { agentId } = auth;
    this.#call = call;
    this.#deps = deps;
    this.#auth = auth;
    this.#agentId = agentId;
    this.#log = deps.logger.child({ sessionId: this.#sessionId, agentId, peer: call.getPeer() });
    this.#helloTimer = setTimeout(
      () => this.#fail(status.DEADLINE_EXCEEDED, `no hello within ${deps.helloTimeoutSeconds} s`),
      deps.helloTimeoutSeconds * 1000,
    );
  }

  /** Takes the stream's messages in order, and ends the session with the stream. */
  start(): void {
    const call = this.#call;
    call.on('data', (message: AgentMessage__Output) => {
      this.#queue = this.#queue
        .then(() => this.#handle(message))
        .catch((error: unknown) => {
          if (error instanceof RpcFailure) return this.#fail(error.code, error.message);
          this.#log.error({ err: error }, 'session message failed');
          this.#fail(status.UNAVAILABLE, 'the control plane could not process the message; reconnect');
        });
    });
    call.on('end', () => {
      void this.#queue.then(() => {
        this.#cleanup('agent closed the stream');
        if (!call.destroyed) call.end();
      });
    });
    call.on('cancelled', () => this.#cleanup('cancelled'));
    call.on('error', () => this.#cleanup('stream error'));
  }

  #send = (message: ControlMessage): boolean => {
    const call = this.#call;
    if (this.#closed || call.destroyed || !call.writable) return false;
    // write() returning false only asks for backpressure; the message is queued either way.
    call.write(message);
    return true;
  };

  #cleanup(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#helloTimer);
    clearInterval(this.#heartbeatTimer);
    if (this.#session === undefined) return;
    const deps = this.#deps;
    deps.registry.remove(this.#sessionId);
    const ended = this.#session;
    this.#session = undefined;
    this.#log.info({ reason }, 'agent session ended');
    deps.sessionListener
      .closed(ended)
      .catch((error: unknown) => this.#log.error({ err: error }, 'cannot hand over what the session held'));
    if (!deps.registry.isConnected(this.#agentId)) {
      deps.store.agents
        .disconnected(this.#agentId, deps.now())
        .catch((error: unknown) => this.#log.error({ err: error }, 'cannot record agent disconnect'));
    }
  }

  #fail(code: number, details: string): void {
    if (this.#closed) return;
    this.#cleanup(details);
    this.#call.emit('error', { code, details });
  }

  async #handle(message: AgentMessage__Output): Promise<void> {
    if (this.#closed) return;
    const session = this.#session;
    if (session === undefined) {
      if (message.message !== 'hello' || message.hello == null) {
        throw new RpcFailure(status.FAILED_PRECONDITION, 'the first message of a session must be hello');
      }
      await this.#register(message.hello);
      return;
    }
    switch (message.message) {
      case 'hello':
        throw new RpcFailure(status.FAILED_PRECONDITION, 'hello may be sent once per session');
      case 'heartbeat': {
        // Revoked or rotated on another replica: this one hears of it here.
        if (!(await this.#deps.authenticator.stillValid(this.#auth)))
          throw new RpcFailure(status.UNAUTHENTICATED, CREDENTIAL_WITHDRAWN);
        const now = this.#deps.now();
        this.#deps.registry.heartbeat(this.#sessionId, now);
        await this.#deps.store.agents.heartbeat(this.#agentId, now);
        return;
      }
      case 'accountStatus':
        if (message.accountStatus != null) await this.#accountStatus(session, message.accountStatus);
        return;
      default:
        // An empty message, or a field this version does not know: ignore, as proto3 peers do.
        return;
    }
  }

  /** Hello: the agent and its own accounts recorded, the session live, then what it caches sent. */
  async #register(hello: Hello__Output): Promise<void> {
    const session = await this.#open(hello);
    if (session === undefined) return;
    const held = await this.#deps.sessionListener.opening(session);
    if (this.#closed) return;
    this.#send({
      registered: {
        sessionId: this.#sessionId,
        cache: [
          ...staticAccounts(session.accounts).map((account) => ({
            account: account.name,
            enabled: true,
            kinds: [],
            omitKinds: [],
          })),
          ...held,
        ],
      },
    });
    await this.#deps.sessionListener.opened(session);
    const { heartbeatSeconds } = this.#deps;
    if (heartbeatSeconds > 0) {
      this.#heartbeatTimer = setInterval(
        () =>
          this.#send({
            heartbeat: { sequence: String(++this.#heartbeatSequence), sentAt: toTimestamp(this.#deps.now()) },
          }),
        heartbeatSeconds * 1000,
      );
    }
  }

  /** Records the agent and adds its session to the registry; undefined if the stream closed first. */
  async #open(hello: Hello__Output): Promise<AgentSession | undefined> {
    const deps = this.#deps;
    const agentId = this.#agentId;
    if (hello.agentId !== agentId) {
      const refusal = deps.authenticator.refuse(
        this.#call,
        METHOD,
        'hello.agent_id differs from the authenticated agent',
        { claimedAgentId: hello.agentId },
      );
      throw new RpcFailure(refusal.code, refusal.details);
    }
    const accounts = accountsOf(hello);
    const now = deps.now();
    const registration = {
      agentId,
      version: hello.version,
      zoneId: hello.zoneId,
      replicaCount: hello.replicaCount,
    };
    const held = accounts.filter((a) => a.source === 'cloudctl').map((a) => a.name);
    const own = staticAccounts(accounts);
    const dropped = await deps.store.agents.register({ ...registration, accounts: own }, now, held);
    if (this.#closed) return undefined;
    clearTimeout(this.#helloTimer);
    const session: AgentSession = {
      ...registration,
      sessionId: this.#sessionId,
      accounts,
      dynamicAccounts: dynamicAccountsOf(hello),
      resultRetryWindowMs: Number(hello.resultRetryWindowMs ?? 0),
      connectedAt: now,
      lastHeartbeatAt: now,
      send: this.#send,
    };
    this.#session = session;
    deps.registry.add(session);
    await this.#settleDropped(session, dropped, now);
    this.#log.info(
      {
        version: hello.version,
        zoneId: hello.zoneId,
        accounts: accounts.map((a) => a.name),
        resultRetryWindowMs: session.resultRetryWindowMs,
      },
      'agent registered',
    );
    return session;
  }

  /**
   * The hello is the truth about the agent's own accounts: its older sessions (replicas, or a
   * session not yet ended) stop claiming the static accounts it left out, an account it dropped that
   * another agent lists becomes that agent's, and the rest have left cloudctl.
   */
  async #settleDropped(session: AgentSession, dropped: readonly string[], now: Date): Promise<void> {
    const { registry, store } = this.#deps;
    const listed = new Set(staticAccounts(session.accounts).map((a) => a.name));
    for (const older of registry.list()) {
      if (older.agentId !== this.#agentId || older.sessionId === session.sessionId) continue;
      const kept = older.accounts.filter((a) => a.source !== 'static-agent-config' || listed.has(a.name));
      if (kept.length !== older.accounts.length) registry.setAccounts(older.sessionId, kept);
    }
    const gone = await handOverStaticAccounts(dropped, this.#agentId, {
      registry,
      agents: store.agents,
      now,
    });
    if (gone.length === 0) return;
    this.#log.info({ accounts: gone }, "accounts the agent's hello no longer lists have left cloudctl");
    // Their records are gone already; a failed eviction leaves stale rows, not a failed session.
    await this.#deps
      .accountsDropped(gone)
      .catch((error: unknown) => this.#log.error({ err: error, accounts: gone }, 'cannot evict their cache'));
  }

  /** A dynamic account's status is the placement's; one of the agent's own accounts is recorded. */
  async #accountStatus(session: AgentSession, report: AccountStatus__Output): Promise<void> {
    const state =
      report.state === 'ACTIVE' || report.state === 'FAILED' || report.state === 'REFUSED'
        ? report.state
        : 'UNKNOWN';
    const cluster = { apiServerHost: report.apiServerHost, kubernetesVersion: report.kubernetesVersion };
    const dynamic = await this.#deps.sessionListener.accountStatus(session, {
      account: report.account,
      state,
      message: report.message,
      ...cluster,
    });
    if (dynamic) {
      this.#log.info({ account: report.account, state, message: report.message }, 'dynamic account status');
      return;
    }
    const mine = await this.#deps.store.agents.setAccountStatus(
      this.#agentId,
      report.account,
      state === 'REFUSED' ? 'UNKNOWN' : state,
      report.message,
      this.#deps.now(),
      cluster,
    );
    if (!mine)
      this.#log.warn({ account: report.account }, 'status reported for an account the agent does not serve');
    else this.#log.info({ account: report.account, state, message: report.message }, 'account status');
  }
}

async function connect(call: SessionCall, deps: SessionRpcDeps): Promise<void> {
  const auth = await deps.authenticator.authenticate(call, METHOD);
  if (!auth.ok) {
    call.emit('error', auth.refusal);
    return;
  }
  // Cancelled while the credential was looked up: no listener would ever see it end.
  if (call.cancelled) return;
  deps.authenticator.endOnRevocation(auth, call, METHOD);
  new SessionStream(call, deps, auth).start();
}

export function sessionHandlers(deps: SessionRpcDeps): AgentSessionHandlers {
  return {
    Connect: (call) => {
      connect(call, deps).catch((error: unknown) => {
        deps.logger.error({ err: error, peer: call.getPeer() }, 'cannot authenticate an agent session');
        call.emit('error', { code: status.UNAVAILABLE, details: 'cannot authenticate the agent; reconnect' });
      });
    },
  };
}
