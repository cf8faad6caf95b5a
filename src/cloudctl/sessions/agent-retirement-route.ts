// DELETE /agents/{agentId}: retires an agent that is gone for good (uninstalled, its cluster
// deleted). Its static accounts would otherwise stay ORPHANED in every list and keep their names
// from `POST /credentials`, since only the same agent's next hello can drop them. A connected agent
// is refused: its hello would bring the accounts straight back, and its session's work would be cut.
import { z } from 'zod';
import type { Principal } from '../auth/index.ts';
import { defineRoute, errorBodySchema, HttpError, type Route } from '../http/index.ts';
import type { AgentRegistry } from './agent-registry.ts';
import type { AgentStore } from './agent-store.ts';
import type { SessionFinder } from './session-finder.ts';
import { handOverStaticAccounts } from './static-account-handover.ts';

export interface AgentRetirementDeps {
  store: { agents: AgentStore };
  registry: Pick<AgentRegistry, 'newestSessions'>;
  now: () => Date;
  /** Whether the agent has a session on any replica. */
  sessions: Pick<SessionFinder, 'isConnected'>;
  /** Evicts what is cached of accounts that left. */
  accountsDropped: (accounts: readonly string[]) => Promise<void>;
}

const retiredSchema = z
  .object({
    agentId: z.string(),
    accounts: z
      .array(z.string())
      .describe(
        "the agent's static accounts: gone from every list and cache, unless another connected agent lists the name in its own file (then that agent's)",
      ),
  })
  .describe('RetiredAgent');

function requireAdmin(user: Principal): void {
  if (!user.admin) throw new HttpError('FORBIDDEN', 'only an administrator retires agents');
}

export function agentRetirementRoute(deps: AgentRetirementDeps): Route {
  return defineRoute({
    method: 'DELETE',
    url: '/agents/:agentId',
    summary: 'Retires an agent that is not connected: its static accounts leave every list and cache',
    tag: 'agents',
    access: 'user',
    schema: {
      params: z.object({ agentId: z.string().min(1) }),
      response: {
        200: retiredSchema,
        403: errorBodySchema.describe('the user is not an administrator'),
        404: errorBodySchema.describe('no agent of this id is recorded'),
        409: errorBodySchema.describe('the agent is connected'),
      },
    },
    handler: async ({ params, user }) => {
      requireAdmin(user);
      const { agentId } = params;
      if (await deps.sessions.isConnected(agentId)) {
        throw new HttpError(
          'CONFLICT',
          `agent ${agentId} is connected: stop it (uninstall it) first; a connected agent's next hello would bring its accounts back`,
        );
      }
      const accounts = await deps.store.agents.retire(agentId);
      if (accounts === undefined) throw new HttpError('NOT_FOUND', `no agent ${agentId} is recorded`);
      const { registry, store, now } = deps;
      await deps.accountsDropped(
        await handOverStaticAccounts(accounts, agentId, { registry, agents: store.agents, now: now() }),
      );
      return { agentId, accounts };
    },
  });
}
