// The accounts a user may read, as GET /vendor/accounts answers them (one page of the largest size
// the API serves), and what the cache knows of them: kinds with object counts, last sync, sync
// progress. The agents and accounts views both start here, so they agree with each other.
import { type CachedKind, type SyncProgress, spinnakerKind } from '../../caching/index.ts';
import type { AccountRecord } from '../status-sources.ts';
import type { ViewContext } from '../status-view.ts';

/** The API's largest page: beyond it a view says how many more there are. */
export const ACCOUNT_PAGE = 1000;

export interface ReadableAccounts {
  records: AccountRecord[];
  /** Every account the user may read, on every page. */
  total: number;
}

export async function readableAccounts(context: ViewContext): Promise<ReadableAccounts> {
  const page = await context.sources.accounts.list(context.user, 1, ACCOUNT_PAGE);
  return { records: page.items, total: page.total };
}

export interface CacheFacts {
  kinds: Map<string, Array<{ kind: string; count: number }>>;
  lastSync: Map<string, Date>;
  progress: Map<string, SyncProgress>;
}

/** The kind as Spinnaker (and GET /cache/introspection) names it. */
function kindName(kind: CachedKind): string {
  return spinnakerKind(kind.group === '' ? 'v1' : `${kind.group}/${kind.version ?? ''}`, kind.kind);
}

export async function cacheFacts(context: ViewContext, accounts: readonly string[]): Promise<CacheFacts> {
  const { cache } = context.sources.store;
  const [kinds, lastSync, progress] = await Promise.all([
    cache.kinds(accounts),
    cache.lastSync(accounts),
    cache.syncProgress(accounts),
  ]);
  const byAccount = new Map<string, Array<{ kind: string; count: number }>>();
  for (const kind of kinds) {
    const list = byAccount.get(kind.account) ?? [];
    list.push({ kind: kindName(kind), count: kind.count });
    byAccount.set(kind.account, list);
  }
  return { kinds: byAccount, lastSync, progress };
}
