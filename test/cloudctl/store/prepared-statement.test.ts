// Statements that start with `prepared` are parsed and planned once per PostgreSQL connection
// (prepared-statement.ts): the application view's read is one. They must answer as an unnamed
// statement would on both databases, past the plans PostgreSQL makes before it settles on a
// generic one, and survive a migration that changes what they read under a connection that
// prepared them.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CacheChange } from '../../../src/cloudctl/caching/index.ts';
import { openDatabase, prepared } from '../../../src/cloudctl/store/index.ts';
import { type PostgresServer, startPostgres } from '../../support/postgres-server.ts';
import { type StoreBackend, storeBackends, storesOf } from '../../support/store-backends.ts';

const { backends, stop } = storeBackends();

function deployment(account: string, namespace: string, name: string, app: string): CacheChange {
  return {
    type: 'upsert',
    account,
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    namespace,
    name,
    resourceVersion: '1',
    body: JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name,
        namespace,
        uid: `${account}-${name}`,
        annotations: { 'moniker.spinnaker.io/application': app },
      },
      spec: { replicas: 1, selector: { matchLabels: { app: name } } },
    }),
    snapshotId: null,
  };
}

describe.each(backends)('prepared statements on $name', (backend: StoreBackend) => {
  const stores = storesOf(backend);

  it("reads an application's view the same way every time, past PostgreSQL's first five plans, for any accounts", async () => {
    const accounts = ['prep-a', 'prep-b', 'prep-c'];
    await stores().cache.apply(
      accounts.flatMap((account) => [
        deployment(account, 'web', 'frontend', 'shop'),
        deployment(account, 'web', 'backend', 'shop'),
        deployment(account, 'web', 'other', 'blog'),
      ]),
      new Date(),
    );
    const read = async (readable: string[]) =>
      (await stores().readModel.application('shop', readable, ['serverGroupManager'])).objects
        .map((o) => `${o.account}/${o.name}`)
        .sort();
    for (let i = 0; i < 8; i++) {
      expect(await read(accounts)).toEqual([
        'prep-a/backend',
        'prep-a/frontend',
        'prep-b/backend',
        'prep-b/frontend',
        'prep-c/backend',
        'prep-c/frontend',
      ]);
      expect(await read(['prep-b'])).toEqual(['prep-b/backend', 'prep-b/frontend']);
      expect(await read(['prep-z'])).toEqual([]);
    }
  });
});

describe('prepared statements on one PostgreSQL connection', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('are prepared once on their connection, and answer again after a migration changed their columns or the session lost them', async () => {
    const db = await openDatabase<Record<string, never>>({ kind: 'postgres', url: server.url }, {});
    try {
      await sql`create table prep_t (a integer)`.execute(db);
      await sql`insert into prep_t values (1), (2)`.execute(db);
      await db.connection().execute(async (connection) => {
        const select = (a: number) =>
          sql<Record<string, number>>`${prepared}select * from prep_t where a = ${a}`.execute(connection);
        expect((await select(1)).rows).toEqual([{ a: 1 }]);
        expect((await select(2)).rows).toEqual([{ a: 2 }]);
        const kept = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(
          connection,
        );
        expect(kept.rows.map((r) => r.statement)).toEqual([
          expect.stringMatching(/^\/\* prepared \*\/ select \* from prep_t/),
        ]);
        // What another replica's migration does while this connection holds the statement.
        await sql`alter table prep_t add column b integer default 7`.execute(db);
        expect((await select(2)).rows).toEqual([{ a: 2, b: 7 }]);
      });
      // A session that lost its statements (DISCARD ALL, or a pooler's other server connection).
      await db.connection().execute(async (connection) => {
        const select = (a: number) =>
          sql<Record<string, number>>`${prepared}select a from prep_t where a = ${a}`.execute(connection);
        expect((await select(1)).rows).toEqual([{ a: 1 }]);
        await sql`deallocate all`.execute(connection);
        expect((await select(2)).rows).toEqual([{ a: 2 }]);
      });
      // The connection that held the stale statement was dropped; the pool serves on.
      const again = await sql<Record<string, number>>`${prepared}select * from prep_t where a = ${1}`.execute(
        db,
      );
      expect(again.rows).toEqual([{ a: 1, b: 7 }]);
    } finally {
      await db.destroy();
    }
  });
});

afterAll(stop);
