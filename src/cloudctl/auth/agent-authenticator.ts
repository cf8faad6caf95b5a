// Who is calling: the agent identity a bearer token or a client certificate proves. Every agent RPC
// passes through here before it touches the registry or the store; refusals are logged without the
// token, and nothing is stored for them. A token is first looked up among cloudctl's config agents
// (in memory), then among the credentials made at runtime: one indexed query by the token's hash,
// measured as costly as a read by primary key (the same time within noise on PGlite), and no more
// than the store write each agent call makes anyway, so there is no cache to keep in step with
// revocations across replicas. A stream opened with a runtime credential ends when that credential
// is revoked or rotated: at once on this replica, at the agent's next heartbeat on another.
import { createHash } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { type Metadata, status } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { AgentEntry } from '../config/index.ts';
import type { AgentCredentialSource } from './agent-credential-source.ts';
import type { CredentialRevocations } from './credential-revocations.ts';

export interface RpcRefusal {
  code: status.UNAUTHENTICATED | status.PERMISSION_DENIED;
  details: string;
}

/** The runtime credential an agent proved itself with: what ends its streams when withdrawn. */
export interface ProvenCredential {
  credentialId: string;
  tokenHash: string;
}

export type Authentication =
  | { ok: true; agentId: string; credential?: ProvenCredential }
  | { ok: false; refusal: RpcRefusal };

/** What the authenticator reads from a call (grpc-js server calls have all of it). */
export interface CallCredentials {
  metadata: Metadata;
  getPeer(): string;
  getAuthContext(): { sslPeerCertificate?: { subject?: { CN?: string | string[] } } };
}

/** Credentials made at runtime, and the word that one was withdrawn. */
export interface RuntimeAgentCredentials {
  source: AgentCredentialSource;
  revocations: CredentialRevocations;
}

/** Why a stream of a withdrawn credential ends; the agent reconnects and is refused. */
export const CREDENTIAL_WITHDRAWN =
  'the credential this agent connected with was revoked or its secret rotated';

export function hashToken(token: string): string {
  return `sha256:${createHash('sha256').update(token, 'utf8').digest('hex')}`;
}

function bearerToken(metadata: Metadata): string | undefined | null {
  const values = metadata.get('authorization');
  if (values.length === 0) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(String(values[0]));
  // null: an authorization header that is not a bearer token.
  return match?.[1] ?? null;
}

function certificateCn(call: CallCredentials): string | undefined {
  const cn = call.getAuthContext().sslPeerCertificate?.subject?.CN;
  return Array.isArray(cn) ? cn[0] : cn;
}

type Refuse = (
  code: RpcRefusal['code'],
  details: string,
  fields?: Record<string, unknown>,
) => { ok: false; refusal: RpcRefusal };

export class AgentAuthenticator {
  /** Token hash -> agent id. Hashes are compared, never tokens, so lookups leak nothing usable. */
  readonly #byTokenHash: Map<string, string>;
  readonly #agentIds: Set<string>;
  readonly #logger: Logger;
  readonly #runtime: RuntimeAgentCredentials | undefined;

  constructor(agents: readonly AgentEntry[], logger: Logger, runtime?: RuntimeAgentCredentials) {
    this.#byTokenHash = new Map(
      agents.flatMap((agent) =>
        agent.tokenHash === undefined ? [] : [[agent.tokenHash, agent.id] as const],
      ),
    );
    this.#agentIds = new Set(agents.map((agent) => agent.id));
    this.#logger = logger;
    this.#runtime = runtime;
  }

  async authenticate(call: CallCredentials, method: string): Promise<Authentication> {
    const token = bearerToken(call.metadata);
    const cn = certificateCn(call);
    const refuse: Refuse = (code, details, fields = {}) => {
      this.#logger.warn({ peer: call.getPeer(), method, ...fields }, `refused agent call: ${details}`);
      return { ok: false as const, refusal: { code, details } };
    };
    if (token === null) return refuse(status.UNAUTHENTICATED, 'authorization metadata is not a bearer token');
    if (token !== undefined) {
      const tokenHash = hashToken(token);
      const configured = this.#byTokenHash.get(tokenHash);
      const proven =
        configured === undefined ? await this.#runtimeCredential(tokenHash, refuse) : { agentId: configured };
      if ('ok' in proven) return proven;
      if (cn !== undefined && cn !== proven.agentId) {
        return refuse(
          status.PERMISSION_DENIED,
          'the client certificate belongs to another agent than the token',
          { agentId: proven.agentId, certificateCn: cn },
        );
      }
      return { ok: true, ...proven };
    }
    if (cn !== undefined) {
      if (!this.#agentIds.has(cn)) {
        return refuse(status.PERMISSION_DENIED, `client certificate CN=${cn} is not a configured agent`, {
          certificateCn: cn,
        });
      }
      return { ok: true, agentId: cn };
    }
    return refuse(status.UNAUTHENTICATED, 'no bearer token and no client certificate');
  }

  async #runtimeCredential(
    tokenHash: string,
    refuse: Refuse,
  ): Promise<{ agentId: string; credential: ProvenCredential } | { ok: false; refusal: RpcRefusal }> {
    const found = await this.#runtime?.source.identify(tokenHash);
    if (found === undefined) return refuse(status.UNAUTHENTICATED, 'unknown bearer token');
    if ('notForAgents' in found) {
      return refuse(status.PERMISSION_DENIED, found.notForAgents, { credentialId: found.credentialId });
    }
    return { agentId: found.agentId, credential: { credentialId: found.credentialId, tokenHash } };
  }

  /**
   * Ends `call` with UNAUTHENTICATED when the runtime credential it was opened with is revoked or
   * rotated on this replica; nothing for an agent of the config file. Stops listening when the call ends.
   */
  endOnRevocation(auth: Authentication, call: EventEmitter, method: string): void {
    if (!auth.ok || auth.credential === undefined || this.#runtime === undefined) return;
    const { agentId, credential } = auth;
    const stop = this.#runtime.revocations.watch(credential.credentialId, () => {
      this.#logger.warn(
        { method, agentId, credentialId: credential.credentialId },
        `closing agent stream: ${CREDENTIAL_WITHDRAWN}`,
      );
      call.emit('error', { code: status.UNAUTHENTICATED, details: CREDENTIAL_WITHDRAWN });
    });
    for (const event of ['cancelled', 'error', 'finish', 'close']) call.once(event, stop);
  }

  /**
   * Whether the credential a long-lived stream was opened with still proves its agent: a revocation
   * or rotation on another replica reaches this one's streams through this check.
   */
  async stillValid(auth: Authentication): Promise<boolean> {
    if (!auth.ok || auth.credential === undefined) return true;
    const found = await this.#runtime?.source.identify(auth.credential.tokenHash);
    return found !== undefined && 'agentId' in found && found.agentId === auth.agentId;
  }

  /** Logs a caller whose proven identity does not match what it claims (hello.agent_id, say). */
  refuse(
    call: CallCredentials,
    method: string,
    details: string,
    fields: Record<string, unknown>,
  ): RpcRefusal {
    this.#logger.warn({ peer: call.getPeer(), method, ...fields }, `refused agent call: ${details}`);
    return { code: status.PERMISSION_DENIED, details };
  }
}
