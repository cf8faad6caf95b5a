// The store as one handle: each feature's record keeper over one database, and closing it. The
// record keepers live in their features; only this handle knows them all.
import { CacheStore } from '../caching/index.ts';
import { OperationStore } from '../operations/index.ts';
import { AgentStore } from '../sessions/index.ts';
import { type DatabaseTarget, openDatabase } from './database.ts';

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
