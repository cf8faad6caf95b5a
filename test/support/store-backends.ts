// The two databases cloudctl's stores run on, for store tests that must hold on both: embedded PGlite
// and a real PostgreSQL server, started when its stores are opened and stopped by `stop`.
//   const { backends, stop } = storeBackends();
//   afterAll(stop);
//   describe.each(backends)('… on $name', (backend) => { const stores = storesOf(backend); … stores().tasks … });
import { afterAll, beforeAll } from 'vitest';
import { type CloudctlStores, openStores } from '../../src/cloudctl/index.ts';
import { type PostgresServer, startPostgres } from './postgres-server.ts';

export interface StoreBackend {
  name: string;
  open(): Promise<CloudctlStores>;
}

export function storeBackends(): { backends: StoreBackend[]; stop(): Promise<void> } {
  let postgres: PostgresServer | undefined;
  return {
    backends: [
      { name: 'PGlite', open: () => openStores({ kind: 'pglite', dataDir: 'memory://' }) },
      {
        name: 'PostgreSQL',
        open: async () => {
          postgres = await startPostgres();
          return openStores({ kind: 'postgres', url: postgres.url });
        },
      },
    ],
    stop: async () => {
      await postgres?.stop();
    },
  };
}

/** Inside a describe: the backend's stores, opened before its tests and closed after them. */
export function storesOf(backend: StoreBackend): () => CloudctlStores {
  let stores: CloudctlStores | undefined;
  beforeAll(async () => {
    stores = await backend.open();
  }, 60_000);
  afterAll(async () => {
    await stores?.close();
  });
  return () => {
    if (stores === undefined) throw new Error(`${backend.name}: the stores did not open`);
    return stores;
  };
}
