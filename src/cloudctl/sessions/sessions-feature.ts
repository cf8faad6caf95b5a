// The sessions feature's factory: the orchagent.v1.AgentSession service, one long-lived stream per
// agent, DELETE /agents/{id}, which retires an agent gone for good, and the idle retirement that does
// it unasked when configured. The sessions end when the gRPC endpoint closes; the feature closes only
// the retirement's timer.
import { serviceDefinitions } from '../../proto/index.ts';
import type { Feature } from '../feature.ts';
import type { GrpcService } from '../grpc/index.ts';
import type { Route } from '../http/index.ts';
import { agentRetirementRoute } from './agent-retirement-route.ts';
import { IdleAgentRetirement } from './idle-agent-retirement.ts';
import type { SessionFinder } from './session-finder.ts';
import { type SessionRpcDeps, sessionHandlers } from './session-rpc.ts';

export interface SessionsFeatureDeps extends SessionRpcDeps {
  /** Whether an agent is connected to any replica (an agent is retired only when it is not). */
  sessions: Pick<SessionFinder, 'isConnected'>;
  /** Retire agents with no session for this long (`agentRetirement.notSeenForSeconds`); 0: never. */
  retireAfterSeconds: number;
}

export interface SessionsFeature extends Feature {
  services: GrpcService[];
  routes: Route[];
}

export function sessionsFeature(deps: SessionsFeatureDeps): SessionsFeature {
  const handlers = sessionHandlers(deps);
  const idle = new IdleAgentRetirement({ ...deps, notSeenForSeconds: deps.retireAfterSeconds });
  return {
    name: 'sessions',
    phase: 'services',
    services: [{ name: 'orchagent.v1.AgentSession', definition: serviceDefinitions().session, handlers }],
    routes: [agentRetirementRoute(deps)],
    start: async () => idle.start(),
    close: () => idle.close(),
  };
}
