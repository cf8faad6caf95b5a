// Cache introspection (Spinnaker's `GET /cache/introspection`): per agent and account, what the cache
// holds (kinds with object counts, counted by the database without reading a body), when the agent
// last completed a sync step, how fast events arrive, the account's last error, and whether the
// agent is connected. Spinnaker's record describes one caching agent's run; ours one account's watch.
import { z } from 'zod';
import type { AgentStore, SessionFinder } from '../sessions/index.ts';
import type { CacheStore } from './cache-store.ts';
import type { IngestRate } from './ingest-rate.ts';
import { spinnakerKind } from './kind-resolver.ts';

export const agentIntrospectionSchema = z
  .object({
    id: z.string().describe('<agentId>/<account>'),
    provider: z.string().describe('always orchestrator'),
    agentId: z.string(),
    account: z.string(),
    zoneId: z.string().describe('the zone the agent said it runs in; empty when none'),
    connected: z.boolean().describe('whether a session of the agent serves the account now'),
    status: z.string().describe('the account as the agent last reported it: ACTIVE, FAILED, or UNKNOWN'),
    lastError: z
      .object({ message: z.string() })
      .nullable()
      .describe('why the account failed, while it is FAILED (Throwable-like: clients read .message)'),
    kinds: z
      .array(
        z.object({
          kind: z.string().describe('the kind as Spinnaker names it: deployment, Rollout.argoproj.io'),
          group: z.string().describe('the API group; empty for the core group'),
          count: z.int().describe('objects cached; 0 for a kind watched without objects'),
        }),
      )
      .describe('the kinds cached for the account'),
    totalObjects: z.int(),
    lastSyncMs: z
      .int()
      .nullable()
      .describe('when the agent last ended a relist or sent a bookmark for the account, ms since the epoch'),
    lastSyncDate: z.string().nullable().describe('lastSyncMs as ISO 8601'),
    eventsPerSecond: z.number().describe('resource events stored per second, averaged over the last minute'),
  })
  .describe('AgentIntrospection');
export type AgentIntrospection = z.infer<typeof agentIntrospectionSchema>;

export interface IntrospectionSources {
  agents: AgentStore;
  cache: CacheStore;
  sessions: Pick<SessionFinder, 'servingAgent'>;
  rate: IngestRate;
  now: () => Date;
}

/** One record per account an agent serves, of the named accounts; by agent, then account. */
export async function cacheIntrospection(
  accountNames: ReadonlySet<string>,
  sources: IntrospectionSources,
): Promise<AgentIntrospection[]> {
  const accounts = (await sources.agents.accounts()).filter((a) => accountNames.has(a.name));
  const names = accounts.map((a) => a.name);
  const kinds = await sources.cache.kinds(names);
  const lastSync = await sources.cache.lastSync(names);
  const zones = new Map((await sources.agents.agents()).map((agent) => [agent.id, agent.zoneId]));
  const now = sources.now();
  const serving = new Map(
    await Promise.all(
      accounts.map(
        async (account) => [account.name, await sources.sessions.servingAgent(account.name)] as const,
      ),
    ),
  );
  return accounts
    .map((account): AgentIntrospection => {
      const own = kinds.filter((k) => k.account === account.name);
      const synced = lastSync.get(account.name);
      return {
        id: `${account.agentId}/${account.name}`,
        provider: 'orchestrator',
        agentId: account.agentId,
        account: account.name,
        zoneId: zones.get(account.agentId) ?? '',
        connected: serving.get(account.name) === account.agentId,
        status: account.status,
        lastError:
          account.status === 'FAILED'
            ? { message: account.statusMessage || 'the agent gave no reason' }
            : null,
        kinds: own.map((k) => ({
          // Only the group decides the spelling; the version is not needed for it.
          kind: spinnakerKind(k.group === '' ? 'v1' : `${k.group}/${k.version ?? ''}`, k.kind),
          group: k.group,
          count: k.count,
        })),
        totalObjects: own.reduce((sum, k) => sum + k.count, 0),
        lastSyncMs: synced?.getTime() ?? null,
        lastSyncDate: synced?.toISOString() ?? null,
        eventsPerSecond: sources.rate.perSecond(account.name, now),
      };
    })
    .sort((a, b) =>
      a.agentId === b.agentId ? compare(a.account, b.account) : compare(a.agentId, b.agentId),
    );
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
