// 0012 turns cached bodies from jsonb into text: a database cached before it keeps every object,
// readable as before, and a body jsonb refused (a \u0000 escape) is stored from then on.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { CacheStore, type CacheTables } from '../../src/cloudctl/caching/index.ts';
import { CLOUDCTL_MIGRATIONS } from '../../src/cloudctl/migrations.ts';
import { type DatabaseTarget, openDatabase } from '../../src/cloudctl/store/index.ts';
import { type PostgresServer, startPostgres } from '../support/postgres-server.ts';

const BEFORE = Object.fromEntries(Object.entries(CLOUDCTL_MIGRATIONS).filter(([name]) => name < '0012'));
const T0 = new Date('2026-11-27T00:00:00Z');
const body = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'old', namespace: 'ns' },
  data: { a: 'é "q"' },
};

let postgres: PostgresServer | undefined;
const dir = mkdtempSync(join(tmpdir(), 'body-migration-'));
afterAll(async () => {
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const targets: Array<[string, () => Promise<DatabaseTarget>]> = [
  ['PGlite', async () => ({ kind: 'pglite', dataDir: join(dir, 'pglite') })],
  [
    'PostgreSQL',
    async () => {
      postgres = await startPostgres();
      return { kind: 'postgres', url: postgres.url };
    },
  ],
];

describe.each(targets)('0012 on %s', (_, target) => {
  it('keeps the objects cached as jsonb, and stores what jsonb refused', async () => {
    const where = await target();
    const before = await openDatabase<Record<string, never>>(where, BEFORE);
    await sql`insert into resources (account, api_group, api_version, kind, namespace, name, resource_version, body, updated_at)
      values ('acc', '', 'v1', 'ConfigMap', 'ns', 'old', '7', ${JSON.stringify(body)}::jsonb, ${T0})`.execute(
      before,
    );
    await before.destroy();

    const after = await openDatabase<CacheTables>(where, CLOUDCTL_MIGRATIONS);
    try {
      const store = new CacheStore(after);
      expect((await store.resources('acc')).map((r) => r.body)).toEqual([body]);
      const nul = { ...body, metadata: { name: 'nul', namespace: 'ns' }, data: { a: 'x\u0000y' } };
      await store.apply(
        [
          {
            type: 'upsert',
            account: 'acc',
            group: '',
            kind: 'ConfigMap',
            namespace: 'ns',
            name: 'nul',
            version: 'v1',
            resourceVersion: '8',
            body: JSON.stringify(nul),
            snapshotId: null,
          },
        ],
        T0,
      );
      expect((await store.object('acc', { group: '', kind: 'ConfigMap' }, ['ns'], 'nul'))?.body).toEqual(nul);
    } finally {
      await after.destroy();
    }
  });
});
