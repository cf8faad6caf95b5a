// Cache introspection (Spinnaker's `GET /cache/introspection`): per agent and account, what the cache
// holds (kinds with object counts, counted by the database without reading a body), when the agent
// last completed a sync step, how fast events arrive, the account's last error, and whether the
// agent is connected. Spinnaker's record describes one caching agent's run; ours one account's watch.
// Every cached account has a record: an agent's static account under that agent, a cloudctl account
// under each agent that caches it (dynamic accounts), and an account whose objects stay cached while
// no agent caches it (its agent away) under no agent.
import { z } from 'zod';
import type { AgentStore, SessionFinder } from '../sessions/index.ts';
import type { CacheStore } from './cache-store.ts';
import type { IngestRate } from './ingest-rate.ts';
import { spinnakerKind } from './kind-resolver.ts';

export const agentIntrospectionSchema = z
  .object({
    id: z.string().describe('<agentId>/<account>; /<account> while no agent caches it'),
    provider: z.string().describe('always orchestrator'),
    agentId: z.string().describe('the agent that caches the account; empty while none does'),
    account: z.string(),
    zoneId: z.string().describe('the zone the agent said it runs in; empty when none'),
    connected: z.boolean().describe('whether a session of the agent serves the account now'),
    source: z
      .enum(['static-agent-config', 'cloudctl'])
      .describe("where the account is defined: an agent's config file, or cloudctl (dynamic accounts)"),
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
    overrides: z
      .enum(['cloudctl'])
      .nullable()
      .describe(
        "a static account that cloudctl defines too: the agent's definition wins (rule 2) and this agent is its only writer; null otherwise",
      ),
  })
  .describe('AgentIntrospection');
export type AgentIntrospection = z.infer<typeof agentIntrospectionSchema>;

export interface IntrospectionSources {
  agents: AgentStore;
  /** Who holds the cloudctl accounts placed on agents, and which of them caches each. */
  dynamicAccounts: {
    holders(
      account?: string,
    ): Promise<{ account: string; agentId: string; caching: boolean; status: string; message: string }[]>;
  };
  /** cloudctl's own account definitions: a static name among them is a conflict the agent wins. */
  credentials: { list(): Promise<ReadonlyArray<{ name: string }>> };
  cache: CacheStore;
  sessions: Pick<SessionFinder, 'servingAgent'>;
  rate: IngestRate;
  now: () => Date;
}

/** One account under one agent, before its cache figures are added. */
interface Entry {
  agentId: string;
  account: string;
  source: AgentIntrospection['source'];
  status: string;
  statusMessage: string;
}

/** Agents' static accounts, the caching holders of cloudctl accounts, then any other cached account. */
async function entriesOf(accountNames: ReadonlySet<string>, sources: IntrospectionSources): Promise<Entry[]> {
  const entries: Entry[] = (await sources.agents.accounts())
    .filter((a) => accountNames.has(a.name))
    .map((a): Entry => ({ ...a, account: a.name, source: 'static-agent-config' }));
  const statics = new Set(entries.map((e) => e.account));
  for (const holder of await sources.dynamicAccounts.holders()) {
    if (!holder.caching || !accountNames.has(holder.account) || statics.has(holder.account)) continue;
    const status = holder.status === 'ACTIVE' || holder.status === 'FAILED' ? holder.status : 'UNKNOWN';
    entries.push({ ...holder, source: 'cloudctl', status, statusMessage: holder.message });
  }
  const listed = new Set(entries.map((e) => e.account));
  const unlisted = [...accountNames].filter((name) => !listed.has(name));
  const cached = new Set((await sources.cache.kinds(unlisted)).map((k) => k.account));
  for (const account of [...cached].sort(compare))
    entries.push({ agentId: '', account, source: 'cloudctl', status: 'UNKNOWN', statusMessage: '' });
  return entries;
}

/**
 * One record per cached account and agent that caches it, of the named accounts; by agent, then
 * account, those no agent caches last.
 */
export async function cacheIntrospection(
  accountNames: ReadonlySet<string>,
  sources: IntrospectionSources,
): Promise<AgentIntrospection[]> {
  const accounts = await entriesOf(accountNames, sources);
  const names = [...new Set(accounts.map((a) => a.account))];
  const kinds = await sources.cache.kinds(names);
  const lastSync = await sources.cache.lastSync(names);
  const zones = new Map((await sources.agents.agents()).map((agent) => [agent.id, agent.zoneId]));
  const definedInCloudctl = new Set((await sources.credentials.list()).map((c) => c.name));
  const now = sources.now();
  const serving = new Map(
    await Promise.all(names.map(async (name) => [name, await sources.sessions.servingAgent(name)] as const)),
  );
  return accounts
    .map((account): AgentIntrospection => {
      const own = kinds.filter((k) => k.account === account.account);
      const synced = lastSync.get(account.account);
      return {
        id: `${account.agentId}/${account.account}`,
        provider: 'orchestrator',
        agentId: account.agentId,
        account: account.account,
        zoneId: zones.get(account.agentId) ?? '',
        connected: account.agentId !== '' && serving.get(account.account) === account.agentId,
        source: account.source,
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
        eventsPerSecond: sources.rate.perSecond(account.account, now),
        overrides:
          account.source === 'static-agent-config' && definedInCloudctl.has(account.account)
            ? 'cloudctl'
            : null,
      };
    })
    .sort(
      (a, b) =>
        Number(a.agentId === '') - Number(b.agentId === '') ||
        compare(a.agentId, b.agentId) ||
        compare(a.account, b.account),
    );
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
