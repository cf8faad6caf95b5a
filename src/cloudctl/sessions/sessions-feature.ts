// The sessions feature's factory: the orchagent.v1.AgentSession service, one long-lived stream per
// agent. It holds nothing of its own to close: the sessions end when the gRPC endpoint closes.
import { serviceDefinitions } from '../../proto/index.ts';
import type { Feature } from '../feature.ts';
import type { GrpcService } from '../grpc/index.ts';
import { type SessionRpcDeps, sessionHandlers } from './session-rpc.ts';

export type SessionsFeatureDeps = SessionRpcDeps;

export interface SessionsFeature extends Feature {
  services: GrpcService[];
}

export function sessionsFeature(deps: SessionsFeatureDeps): SessionsFeature {
  const handlers = sessionHandlers(deps);
  return {
    name: 'sessions',
    phase: 'services',
    services: [{ name: 'orchagent.v1.AgentSession', definition: serviceDefinitions().session, handlers }],
  };
}
