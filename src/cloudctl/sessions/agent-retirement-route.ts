// DELETE /agents/{agentId}: retires an agent that is gone for good (uninstalled, its cluster
// deleted). Its static accounts would otherwise stay ORPHANED in every list and keep their names
// from `POST /credentials`, since only the same agent's next hello can drop them. A connected agent
// is refused: its hello would bring the accounts straight back, and its session's work would be cut.
import { z } from 'zod';
import type { Principal } from '../auth/index.ts';
import { defineRoute, errorBodySchema, HttpError, type Route } from '../http/index.ts';
import { AgentConnectedError, type AgentRetirementDeps, retireAgent } from './agent-retirement.ts';

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
      const accounts = await retireAgent(agentId, deps).catch((error: unknown) => {
        if (error instanceof AgentConnectedError) throw new HttpError('CONFLICT', error.message);
        throw error;
      });
      if (accounts === undefined) throw new HttpError('NOT_FOUND', `no agent ${agentId} is recorded`);
      return { agentId, accounts };
    },
  });
}
