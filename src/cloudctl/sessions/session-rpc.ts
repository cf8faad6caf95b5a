// orchagent.v1.AgentSession: one long-lived stream per agent. Hello registers the agent and its
// accounts (in the store and the live registry); heartbeats flow both ways; operations go down
// through the registry's `send`; the session ends when the stream does.
import { randomUUID } from 'node:crypto';
import { type ServerDuplexStream, status } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import {
  type AgentMessage__Output,
  type AgentSessionHandlers,
  type ControlMessage,
  type Hello__Output,
  toTimestamp,
} from '../../proto/index.ts';
import type { AgentAuthenticator } from '../auth/index.ts';
import { RpcFailure } from '../grpc/index.ts';
import type {
  AgentRegistry,
  AgentSession,
  DynamicAccountSettings,
  SessionAccount,
} from './agent-registry.ts';
import type { AccountRegistration, AgentStore } from './agent-store.ts';
import type { SessionListener } from './session-listener.ts';

/** What the session service uses: passed in, so tests can drive the clock and read the logs. */
export interface SessionRpcDeps {
  authenticator: AgentAuthenticator;
  registry: AgentRegistry;
  /** Told of each session's life (dynamic accounts). */
  sessionListener: SessionListener;
  store: { agents: AgentStore };
  logger: Logger;
  now: () => Date;
  heartbeatSeconds: number;
  helloTimeoutSeconds: number;
}

const METHOD = '/orchagent.v1.AgentSession/Connect';

type SessionCall = ServerDuplexStream<AgentMessage__Output, ControlMessage>;

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
function staticAccounts(accounts: readonly SessionAccount[]): AccountRegistration[] {
  return accounts
    .filter((account) => account.source === 'static-agent-config')
    .map(({ source: _source, ...account }) => account);
}

function connect(call: SessionCall, deps: SessionRpcDeps): void {
  const auth = deps.authenticator.authenticate(call, METHOD);
  if (!auth.ok) {
    call.emit('error', auth.refusal);
    return;
  }
  const { agentId } = auth;
  const sessionId = randomUUID();
  const log = deps.logger.child({ sessionId, agentId, peer: call.getPeer() });
  let session: AgentSession | undefined;
  let heartbeatTimer: NodeJS.Timeout | undefined;
  let heartbeatSequence = 0;
  let closed = false;
  let queue: Promise<void> = Promise.resolve();

  const send = (message: ControlMessage): boolean => {
    if (closed || call.destroyed || !call.writable) return false;
    // write() returning false only asks for backpressure; the message is queued either way.
    call.write(message);
    return true;
  };

  const cleanup = (reason: string) => {
    if (closed) return;
    closed = true;
    clearTimeout(helloTimer);
    clearInterval(heartbeatTimer);
    if (session === undefined) return;
    deps.registry.remove(sessionId);
    const ended = session;
    session = undefined;
    log.info({ reason }, 'agent session ended');
    deps.sessionListener
      .closed(ended)
      .catch((error: unknown) => log.error({ err: error }, 'cannot hand over what the session held'));
    if (!deps.registry.isConnected(agentId)) {
      deps.store.agents
        .disconnected(agentId)
        .catch((error: unknown) => log.error({ err: error }, 'cannot record agent disconnect'));
    }
  };

  const fail = (code: number, details: string) => {
    if (closed) return;
    cleanup(details);
    call.emit('error', { code, details });
  };

  const helloTimer = setTimeout(
    () => fail(status.DEADLINE_EXCEEDED, `no hello within ${deps.helloTimeoutSeconds} s`),
    deps.helloTimeoutSeconds * 1000,
  );

  const register = async (hello: Hello__Output) => {
    if (hello.agentId !== agentId) {
      const refusal = deps.authenticator.refuse(
        call,
        METHOD,
        'hello.agent_id differs from the authenticated agent',
        {
          claimedAgentId: hello.agentId,
        },
      );
      throw new RpcFailure(refusal.code, refusal.details);
    }
    const accounts = accountsOf(hello);
    const now = deps.now();
    await deps.store.agents.register(
      {
        agentId,
        version: hello.version,
        zoneId: hello.zoneId,
        replicaCount: hello.replicaCount,
        accounts: staticAccounts(accounts),
      },
      now,
    );
    if (closed) return;
    clearTimeout(helloTimer);
    session = {
      sessionId,
      agentId,
      version: hello.version,
      zoneId: hello.zoneId,
      replicaCount: hello.replicaCount,
      accounts,
      dynamicAccounts: dynamicAccountsOf(hello),
      resultRetryWindowMs: Number(hello.resultRetryWindowMs ?? 0),
      connectedAt: now,
      lastHeartbeatAt: now,
      send,
    };
    deps.registry.add(session);
    log.info(
      {
        version: hello.version,
        zoneId: hello.zoneId,
        accounts: accounts.map((a) => a.name),
        resultRetryWindowMs: session.resultRetryWindowMs,
      },
      'agent registered',
    );
    const held = await deps.sessionListener.opening(session);
    if (closed) return;
    send({
      registered: {
        sessionId,
        cache: [
          ...staticAccounts(accounts).map((account) => ({
            account: account.name,
            enabled: true,
            kinds: [],
            omitKinds: [],
          })),
          ...held,
        ],
      },
    });
    await deps.sessionListener.opened(session);
    if (deps.heartbeatSeconds > 0) {
      heartbeatTimer = setInterval(
        () => send({ heartbeat: { sequence: String(++heartbeatSequence), sentAt: toTimestamp(deps.now()) } }),
        deps.heartbeatSeconds * 1000,
      );
    }
  };

  const handle = async (message: AgentMessage__Output) => {
    if (closed) return;
    if (session === undefined) {
      if (message.message !== 'hello' || message.hello == null) {
        throw new RpcFailure(status.FAILED_PRECONDITION, 'the first message of a session must be hello');
      }
      await register(message.hello);
      return;
    }
    switch (message.message) {
      case 'hello':
        throw new RpcFailure(status.FAILED_PRECONDITION, 'hello may be sent once per session');
      case 'heartbeat': {
        const now = deps.now();
        deps.registry.heartbeat(sessionId, now);
        await deps.store.agents.heartbeat(agentId, now);
        return;
      }
      case 'accountStatus': {
        const report = message.accountStatus;
        if (report == null) return;
        const state =
          report.state === 'ACTIVE' || report.state === 'FAILED' || report.state === 'REFUSED'
            ? report.state
            : 'UNKNOWN';
        const dynamic = await deps.sessionListener.accountStatus(session, {
          account: report.account,
          state,
          message: report.message,
        });
        if (dynamic) {
          log.info({ account: report.account, state, message: report.message }, 'dynamic account status');
          return;
        }
        const mine = await deps.store.agents.setAccountStatus(
          agentId,
          report.account,
          state === 'REFUSED' ? 'UNKNOWN' : state,
          report.message,
          deps.now(),
        );
        if (!mine)
          log.warn({ account: report.account }, 'status reported for an account the agent does not serve');
        else log.info({ account: report.account, state, message: report.message }, 'account status');
        return;
      }
      default:
        // An empty message, or a field this version does not know: ignore, as proto3 peers do.
        return;
    }
  };

  call.on('data', (message: AgentMessage__Output) => {
    queue = queue
      .then(() => handle(message))
      .catch((error: unknown) => {
        if (error instanceof RpcFailure) return fail(error.code, error.message);
        log.error({ err: error }, 'session message failed');
        fail(status.UNAVAILABLE, 'the control plane could not process the message; reconnect');
      });
  });
  call.on('end', () => {
    void queue.then(() => {
      cleanup('agent closed the stream');
      if (!call.destroyed) call.end();
    });
  });
  call.on('cancelled', () => cleanup('cancelled'));
  call.on('error', () => cleanup('stream error'));
}

export function sessionHandlers(deps: SessionRpcDeps): AgentSessionHandlers {
  return { Connect: (call) => connect(call, deps) };
}
