// Opens the control plane's database: a PostgreSQL server by URL (pg), or embedded PGlite in a data
// directory; then brings the schema up to date. Everything above this sees one Kysely<CloudctlDatabase>.
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import pg from 'pg';
import { CloudctlError } from '../errors.ts';
import { migrationProvider } from './migrations.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import type { CloudctlDatabase } from './schema.ts';

export type DatabaseTarget =
  | { kind: 'postgres'; url: string }
  /** A directory, or `memory://` for a database that lives as long as the process. */
  | { kind: 'pglite'; dataDir: string };

export type Database = Kysely<CloudctlDatabase>;

function describe(target: DatabaseTarget): string {
  if (target.kind === 'pglite') return `PGlite at ${target.dataDir}`;
  // Never print a password from the URL.
  const url = new URL(target.url);
  return `PostgreSQL at ${url.host}${url.pathname}`;
}

export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  let db: Database;
  try {
    if (target.kind === 'postgres') {
      const pool = new pg.Pool({ connectionString: target.url });
      // An idle connection that PostgreSQL drops (a restart, a failover) is an 'error' event on the
      // pool; unhandled, it would end the process. The pool discards the connection by itself and
      // opens a new one for the next query; a query that cannot be served fails where it is made,
      // and /ready reports the database as failing.
      pool.on('error', () => {});
      db = new Kysely({ dialect: new PostgresDialect({ pool }) });
    } else {
      if (!target.dataDir.startsWith('memory://')) await mkdir(target.dataDir, { recursive: true });
      db = new Kysely({ dialect: new PGliteDialect(new PGlite(target.dataDir)) });
    }
  } catch (error) {
    throw new CloudctlError('DATABASE_UNAVAILABLE', `${describe(target)}: ${String(error)}`, {
      cause: error,
    });
  }
  const { error, results } = await new Migrator({ db, provider: migrationProvider }).migrateToLatest();
  if (error !== undefined) {
    await db.destroy();
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'migration';
    throw new CloudctlError(
      'DATABASE_UNAVAILABLE',
      `${describe(target)}: ${failed} failed: ${String(error)}`,
      {
        cause: error,
      },
    );
  }
  return db;
}
