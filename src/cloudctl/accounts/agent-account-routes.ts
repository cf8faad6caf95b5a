// GET /agents/orchestrator/accounts/{accountName} and .../namespaces: an account as the agents serve
// it (the API we mirror answers with its agent plugin's account record, whose field names we keep),
// and the namespaces its cache knows. Both need READ on the account; an unknown account is a 404.
import { z } from 'zod';
import { defineRoute, type Route } from '../http/index.ts';
import type { AgentStore, SessionFinder } from '../sessions/index.ts';
import type { AccountGuard } from './account-guard.ts';

/** One agent holding a cloudctl account, as the dynamic accounts store it. */
interface HolderView {
  agentId: string;
  caching: boolean;
  status: string;
  message: string;
  apiServerHost?: string;
  kubernetesVersion?: string;
}

export interface AgentAccountRouteDeps {
  guard: AccountGuard;
  store: {
    agents: Pick<AgentStore, 'account' | 'agents'>;
    /** The namespaces the account's cached objects name. */
    cache: { namespaces(account: string): Promise<string[]> };
    /** Where a cloudctl-defined account is placed (dynamic accounts). */
    dynamicAccounts: {
      holders(account: string): Promise<HolderView[]>;
      registration(account: string): Promise<{ zoneId: string | null } | undefined>;
    };
  };
  sessions: Pick<SessionFinder, 'servingAgent'>;
}

const agentEntrySchema = z.object({
  agentId: z.string(),
  caching: z.boolean().describe('whether the agent watches and caches the account (false: operations only)'),
});

const agentAccountSchema = z
  .object({
    name: z.string(),
    type: z.string().describe('the cloud provider: orchestrator'),
    source: z
      .string()
      .describe("where the account is defined: static-agent-config (an agent's file) or cloudctl"),
    zoneId: z.string().nullable().describe("the zone of the account's agent; null without one"),
    agents: z
      .array(agentEntrySchema)
      .describe(
        'the agents confirmed to handle the account (its static agent; for a cloudctl account, those that reported it ACTIVE)',
      ),
    pendingAgents: z
      .array(agentEntrySchema)
      .describe('agents a cloudctl account was sent to that have not confirmed it yet'),
    status: z.string().describe('ACTIVE, FAILED, or UNKNOWN until the agent reports'),
    errorMessage: z.string().nullable().describe('why the account failed, while it is FAILED'),
    kubeHost: z.string().nullable().describe("the cluster's API server, as the agent reached it"),
    kubeVersion: z.string().nullable().describe("the cluster's Kubernetes version"),
    permissions: z.record(z.string(), z.array(z.string())).describe('roles by access: READ and WRITE'),
    lastUpdated: z
      .int()
      .nullable()
      .describe('when the agent last registered or reported the account, ms since the epoch'),
  })
  .describe('AgentAccount');

const accountPath = z.object({ accountName: z.string().min(1) });

/** The ACTIVE holder that said which cluster it reached, the caching one first. */
function reached(holders: readonly HolderView[]): HolderView | undefined {
  const active = holders.filter((h) => h.status === 'ACTIVE' && h.apiServerHost);
  return active.find((h) => h.caching) ?? active[0];
}

export function agentAccountRoutes(deps: AgentAccountRouteDeps): Route[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/agents/orchestrator/accounts/:accountName',
      summary: 'An account as the agents serve it: agent, zone, status, cluster',
      tag: 'agent-accounts-controller',
      access: 'user',
      schema: { params: accountPath, response: { 200: agentAccountSchema } },
      handler: async ({ params, user }) => {
        const known = await deps.guard.require(user, params.accountName, 'READ');
        const stored = await deps.store.agents.account(known.name);
        if (stored === undefined && known.source === 'cloudctl') {
          // Placed on agents through the dynamic accounts interface: its holders say where and how.
          const holders = await deps.store.dynamicAccounts.holders(known.name);
          const failed = holders.find((h) => h.status === 'FAILED');
          const serving = holders.filter((h) => h.status !== 'FAILED');
          const cluster = reached(holders);
          const entries = (status: string) =>
            holders
              .filter((h) => h.status === status)
              .map((h) => ({ agentId: h.agentId, caching: h.caching }));
          return {
            name: known.name,
            type: 'orchestrator',
            source: known.source,
            zoneId: (await deps.store.dynamicAccounts.registration(known.name))?.zoneId ?? null,
            agents: entries('ACTIVE'),
            pendingAgents: entries('SENT'),
            status: serving.some((h) => h.status === 'ACTIVE') ? 'ACTIVE' : failed ? 'FAILED' : 'UNKNOWN',
            errorMessage: failed !== undefined && serving.length === 0 ? failed.message : null,
            // The cluster as its serving holder reported reaching it (the caching one first).
            kubeHost: cluster?.apiServerHost || null,
            kubeVersion: cluster?.kubernetesVersion || null,
            permissions: { READ: [...known.permissions.read], WRITE: [...known.permissions.write] },
            lastUpdated: null,
          };
        }
        const agentId = known.agentId ?? stored?.agentId;
        const agent =
          agentId === undefined
            ? undefined
            : (await deps.store.agents.agents()).find((a) => a.id === agentId);
        const failed = stored?.status === 'FAILED';
        return {
          name: known.name,
          type: 'orchestrator',
          source: known.source,
          zoneId: agent?.zoneId ?? null,
          // As for a cloudctl account's holders: an agent reporting the account FAILED does not serve it.
          agents:
            agentId === undefined || failed
              ? []
              : [{ agentId, caching: (await deps.sessions.servingAgent(known.name)) === agentId }],
          pendingAgents: [],
          status: stored?.status ?? 'UNKNOWN',
          errorMessage: failed ? stored.statusMessage : null,
          kubeHost: stored?.apiServerHost || null,
          kubeVersion: stored?.kubernetesVersion || null,
          permissions: { READ: [...known.permissions.read], WRITE: [...known.permissions.write] },
          lastUpdated: stored?.updatedAt.getTime() ?? null,
        };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/agents/orchestrator/accounts/:accountName/namespaces',
      summary: "The account's namespaces: those its cached Namespace objects name, and those objects live in",
      tag: 'agent-accounts-controller',
      access: 'user',
      schema: { params: accountPath, response: { 200: z.array(z.string()) } },
      handler: async ({ params, user }) => {
        const known = await deps.guard.require(user, params.accountName, 'READ');
        return deps.store.cache.namespaces(known.name);
      },
    }),
  ];
}
