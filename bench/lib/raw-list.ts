// The physical limit of an initial sync: the same kinds listed over HTTP, 500 per page, with nothing
// done to the objects but parsing the pages. Kinds are listed concurrently, as the agent does.
import type { ApiClient } from '../../test/cluster/api-client.ts';

export interface RawListResult {
  ms: number;
  objects: number;
  /** Objects listed per path, in the order given. */
  perPath: number[];
}

interface Page {
  items?: unknown[];
  metadata?: { continue?: string };
}

async function listAll(client: ApiClient, path: string): Promise<number> {
  let count = 0;
  let token: string | undefined;
  do {
    const query = `limit=500${token === undefined ? '' : `&continue=${encodeURIComponent(token)}`}`;
    const response = await client.request('GET', `${path}?${query}`);
    if (response.status !== 200) throw new Error(`GET ${path}: HTTP ${response.status}`);
    const page = response.json as Page;
    count += page.items?.length ?? 0;
    token = page.metadata?.continue || undefined;
  } while (token !== undefined);
  return count;
}

/** `paths` are collection paths such as `/api/v1/configmaps` (every namespace). */
export async function rawList(client: ApiClient, paths: readonly string[]): Promise<RawListResult> {
  const started = performance.now();
  const counts = await Promise.all(paths.map((path) => listAll(client, path)));
  return { ms: performance.now() - started, objects: counts.reduce((a, b) => a + b, 0), perPath: counts };
}
