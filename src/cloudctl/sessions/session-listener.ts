// What another feature learns of a session's life, in the order the session lives it: the session
// opens (the listener decides what the agent caches of the cloudctl accounts its hello lists, before
// `registered` goes down), is registered (the listener sends what else the agent should hold), reports
// on accounts, and ends. Dynamic accounts listen; sessions do not know them.
import type { ControlMessage } from '../../proto/index.ts';
import type { AgentSession, SessionView } from './agent-registry.ts';

export type CacheDirective = NonNullable<
  NonNullable<ControlMessage['cacheDirectives']>['directives']
>[number];

export interface AccountReport {
  account: string;
  state: 'ACTIVE' | 'FAILED' | 'REFUSED' | 'UNKNOWN';
  message: string;
  /** With ACTIVE: the cluster the agent reached ('' when it did not say). */
  apiServerHost: string;
  kubernetesVersion: string;
}

export interface SessionListener {
  /** The cache directives for the cloudctl accounts the hello lists (an agent that reconnected). */
  opening(session: AgentSession): Promise<CacheDirective[]>;
  /** Called once `registered` is sent. */
  opened(session: AgentSession): Promise<void>;
  /** A report on an account; false when it is not a cloudctl account the agent holds. */
  accountStatus(session: AgentSession, report: AccountReport): Promise<boolean>;
  closed(session: SessionView): Promise<void>;
}
