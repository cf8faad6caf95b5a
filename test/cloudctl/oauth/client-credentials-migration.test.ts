// 0019 gives client credentials a type, several roles, a bound agent and a rotation time: a client
// made before it (one role) is a Deployments Full Access credential with that one role, its secret and
// its tokens still good, on PGlite and on PostgreSQL.
import { Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { CLOUDCTL_MIGRATIONS } from '../../../src/cloudctl/migrations.ts';
import { OAuthStore, type OAuthTables } from '../../../src/cloudctl/oauth/index.ts';
import {
  type DatabaseTarget,
  defaultTemplateFolder,
  openDatabase,
} from '../../../src/cloudctl/store/index.ts';
import { type PostgresServer, startPostgres } from '../../support/postgres-server.ts';

/** A fresh PGlite database starts from the template instead of running initdb (slow on a busy machine). */
const TEMPLATES = { pgliteTemplates: defaultTemplateFolder() };
const BEFORE = Object.fromEntries(Object.entries(CLOUDCTL_MIGRATIONS).filter(([name]) => name < '0019'));
const T0 = new Date('2026-11-27T00:00:00Z');
const SECRET_HASH = `sha256:${'a'.repeat(64)}`;
const TOKEN_HASH = `sha256:${'b'.repeat(64)}`;

let postgres: PostgresServer | undefined;
afterAll(async () => {
  await postgres?.stop();
});

const targets: Array<[string, () => Promise<DatabaseTarget>]> = [
  ['PGlite', async () => ({ kind: 'pglite', dataDir: 'memory://' })],
  [
    'PostgreSQL',
    async () => {
      postgres = await startPostgres();
      return { kind: 'postgres', url: postgres.url };
    },
  ],
];

describe.each(targets)('0019 on %s', (_, target) => {
  it('makes an earlier client a deployments credential with its one role, secret and tokens kept', async () => {
    const where = await target();
    // Typed as after 0019, which the same connection is migrated to below.
    const before = await openDatabase<OAuthTables>(where, BEFORE, TEMPLATES);
    await sql`insert into oauth_clients (client_id, name, secret_hash, role, created_by, created_at, revoked_at)
      values ('old-client', 'webhook job', ${SECRET_HASH}, 'ops', 'root', ${T0}, null)`.execute(before);
    await sql`insert into oauth_tokens (token_hash, client_id, issued_at, expires_at)
      values (${TOKEN_HASH}, 'old-client', ${T0}, ${new Date(T0.getTime() + 3600_000)})`.execute(before);
    // The same connection migrated on (an embedded database in memory lives as long as it).
    const { error } = await new Migrator({
      db: before,
      provider: { getMigrations: async () => ({ ...CLOUDCTL_MIGRATIONS }) },
    }).migrateToLatest();
    expect(error).toBeUndefined();
    try {
      const store = new OAuthStore(before);
      expect(await store.client('old-client')).toEqual({
        clientId: 'old-client',
        name: 'webhook job',
        type: 'deployments',
        roles: ['ops'],
        agentId: null,
        secretHash: SECRET_HASH,
        createdBy: 'root',
        createdAt: T0,
        rotatedAt: null,
        revokedAt: null,
      });
      const during = new Date(T0.getTime() + 60_000);
      expect(await store.tokenOwner(TOKEN_HASH, during)).toEqual({
        clientId: 'old-client',
        name: 'webhook job',
        type: 'deployments',
        roles: ['ops'],
      });
      // Known, but no agent's: the agents' authenticator says why instead of "unknown".
      expect(await store.agentClient(SECRET_HASH, during)).toEqual({
        clientId: 'old-client',
        type: 'deployments',
      });
    } finally {
      await before.destroy();
    }
  });
});
