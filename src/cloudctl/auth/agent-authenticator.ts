// Who is calling: the agent identity a bearer token or a client certificate proves. Every agent RPC
// passes through here before it touches the registry or the store; refusals are logged without the
// token, and nothing is stored for them.
import { createHash } from 'node:crypto';
import { type Metadata, status } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { AgentEntry } from '../config/index.ts';

export interface RpcRefusal {
  code: status.UNAUTHENTICATED | status.PERMISSION_DENIED;
  details: string;
}

export type Authentication = { ok: true; agentId: string } | { ok: false; refusal: RpcRefusal };

/** What the authenticator reads from a call (grpc-js server calls have all of it). */
export interface CallCredentials {
  metadata: Metadata;
  getPeer(): string;
  getAuthContext(): { sslPeerCertificate?: { subject?: { CN?: string | string[] } } };
}

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

export class AgentAuthenticator {
  /** Token hash -> agent id. Hashes are compared, never tokens, so lookups leak nothing usable. */
  readonly #byTokenHash: Map<string, string>;
  readonly #agentIds: Set<string>;
  readonly #logger: Logger;

  constructor(agents: readonly AgentEntry[], logger: Logger) {
    this.#byTokenHash = new Map(
      agents.flatMap((agent) =>
        agent.tokenHash === undefined ? [] : [[agent.tokenHash, agent.id] as const],
      ),
    );
    this.#agentIds = new Set(agents.map((agent) => agent.id));
    this.#logger = logger;
  }

  authenticate(call: CallCredentials, method: string): Authentication {
    const token = bearerToken(call.metadata);
    const cn = certificateCn(call);
    const refuse = (code: RpcRefusal['code'], details: string, fields: Record<string, unknown> = {}) => {
      this.#logger.warn({ peer: call.getPeer(), method, ...fields }, `refused agent call: ${details}`);
      return { ok: false as const, refusal: { code, details } };
    };
    if (token === null) return refuse(status.UNAUTHENTICATED, 'authorization metadata is not a bearer token');
    if (token !== undefined) {
      const agentId = this.#byTokenHash.get(hashToken(token));
      if (agentId === undefined) return refuse(status.UNAUTHENTICATED, 'unknown bearer token');
      if (cn !== undefined && cn !== agentId) {
        return refuse(
          status.PERMISSION_DENIED,
          'the client certificate belongs to another agent than the token',
          {
            agentId,
            certificateCn: cn,
          },
        );
      }
      return { ok: true, agentId };
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
