// The store as one handle: the three record keepers over one database, and closing it.
import { AgentStore } from './agent-store.ts';
import { CacheStore } from './cache-store.ts';
import { type DatabaseTarget, openDatabase } from './database.ts';
import { OperationStore } from './operation-store.ts';

export interface CloudctlStore {
  agents: AgentStore;
  cache: CacheStore;
  operations: OperationStore;
  close(): Promise<void>;
}

export async function openStore(target: DatabaseTarget): Promise<CloudctlStore> {
  const db = await openDatabase(target);
  return {
    agents: new AgentStore(db),
    cache: new CacheStore(db),
    operations: new OperationStore(db),
    close: () => db.destroy(),
  };
}
