// The sessions feature's factory: the orchagent.v1.AgentSession service, one long-lived stream per
// agent, and DELETE /agents/{id}, which retires an agent gone for good. It holds nothing of its own to
// close: the sessions end when the gRPC endpoint closes.
import { serviceDefinitions } from '../../proto/index.ts';
import type { Feature } from '../feature.ts';
import type { GrpcService } from '../grpc/index.ts';
import type { Route } from '../http/index.ts';
import { agentRetirementRoute } from './agent-retirement-route.ts';
import type { SessionFinder } from './session-finder.ts';
import { type SessionRpcDeps, sessionHandlers } from './session-rpc.ts';

export interface SessionsFeatureDeps extends SessionRpcDeps {
  /** Whether an agent is connected to any replica (an agent is retired only when it is not). */
  sessions: Pick<SessionFinder, 'isConnected'>;
}

export interface SessionsFeature extends Feature {
  services: GrpcService[];
  routes: Route[];
}

export function sessionsFeature(deps: SessionsFeatureDeps): SessionsFeature {
  const handlers = sessionHandlers(deps);
  return {
    name: 'sessions',
    phase: 'services',
    services: [{ name: 'orchagent.v1.AgentSession', definition: serviceDefinitions().session, handlers }],
    routes: [agentRetirementRoute(deps)],
  };
}
