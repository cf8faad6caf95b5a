// What the gRPC services share: passed in, so tests can drive the clock and read the logs.
import type { Logger } from 'pino';
import type { AgentAuthenticator } from '../auth/index.ts';
import type { CloudctlMetrics } from '../observability/index.ts';
import type { OperationDispatcher } from '../operations/index.ts';
import type { AgentRegistry, SessionListener } from '../sessions/index.ts';
import type { CloudctlStore } from '../store/index.ts';

export interface RpcDeps {
  authenticator: AgentAuthenticator;
  registry: AgentRegistry;
  /** Told of each session's life (dynamic accounts). */
  sessionListener: SessionListener;
  store: CloudctlStore;
  dispatcher: OperationDispatcher;
  logger: Logger;
  metrics: CloudctlMetrics;
  now: () => Date;
  heartbeatSeconds: number;
  helloTimeoutSeconds: number;
}

/** A gRPC status to end a call with. */
export interface RpcError {
  code: number;
  details: string;
}

/** Thrown inside handlers to end the call with this status (anything else becomes UNAVAILABLE). */
export class RpcFailure extends Error {
  readonly code: number;

  constructor(code: number, details: string) {
    super(details);
    this.name = 'RpcFailure';
    this.code = code;
  }
}
