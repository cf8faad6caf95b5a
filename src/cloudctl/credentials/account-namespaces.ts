// An account's `namespaces` as GET /credentials shows them (Deck's namespace drop-downs read it):
// clouddriver's declared namespaces — those the account lists, else those it sees in the cluster —
// less those it omits. What cloudctl sees is what GET /agents/orchestrator/accounts/{name}/namespaces
// answers: the namespaces the account's cached objects name.
import type { CacheStore } from '../caching/index.ts';

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/** `definition` is the account's cloudctl definition; an agent's config-file account has none here. */
export async function accountNamespaces(
  cache: Pick<CacheStore, 'namespaces'>,
  account: string,
  definition: Record<string, unknown> | undefined,
): Promise<string[]> {
  const listed = strings(definition?.namespaces);
  const omitted = new Set(strings(definition?.omitNamespaces));
  const namespaces = listed.length > 0 ? listed : await cache.namespaces(account);
  return namespaces.filter((ns) => !omitted.has(ns));
}
