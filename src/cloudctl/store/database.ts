// Opens the control plane's database: a PostgreSQL server by URL (pg), or embedded PGlite in a data
// directory; then brings the schema up to date with the migrations the caller lists (the composition
// root knows every feature's; this floor knows none). A fresh PGlite directory starts from the
// template in the folder the caller names, if any (pglite-template.ts).
import { mkdir } from 'node:fs/promises';
import { Kysely, type Migration, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { CloudctlError } from '../errors.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import { openPGlite } from './pglite-template.ts';
import { kyselyPool } from './postgres-pool.ts';
import { markSingleSession } from './single-session.ts';

export type DatabaseTarget =
  | { kind: 'postgres'; url: string }
  /** A directory, or `memory://` for a database that lives as long as the process. */
  | { kind: 'pglite'; dataDir: string };

function describe(target: DatabaseTarget): string {
  if (target.kind === 'pglite') return `PGlite at ${target.dataDir}`;
  // Never print a password from the URL.
  const url = new URL(target.url);
  return `PostgreSQL at ${url.host}${url.pathname}`;
}

export interface OpenDatabaseOptions {
  /** Where fresh PGlite databases find, or leave, the template that spares them initdb. */
  pgliteTemplates?: string;
}

/**
 * How long an idle connection to PostgreSQL is kept (pg's default is 10 s). Opening one took
 * 30–100 ms on a busy machine, and its first statements plan on cold caches: with the default, a
 * control plane answering a read every few seconds opened connections all the time, and the reads
 * that waited for one were its slowest (bench:many-accounts). An idle connection costs PostgreSQL
 * a few MiB; the pool holds ten at most.
 */
const IDLE_CONNECTION_MS = 5 * 60_000;

/**
 * Opens the database and runs, in the order of their names, the migrations not yet run. `Tables` is
 * what those migrations make; Kysely takes the caller's word for it.
 */
export async function openDatabase<Tables>(
  target: DatabaseTarget,
  migrations: Readonly<Record<string, Migration>>,
  options: OpenDatabaseOptions = {},
): Promise<Kysely<Tables>> {
  let db: Kysely<Tables>;
  try {
    if (target.kind === 'postgres') {
      const pool = new pg.Pool({ connectionString: target.url, idleTimeoutMillis: IDLE_CONNECTION_MS });
      // An idle connection that PostgreSQL drops (a restart, a failover) is an 'error' event on the
      // pool; unhandled, it would end the process. The pool discards the connection by itself and
      // opens a new one for the next query; a query that cannot be served fails where it is made,
      // and /ready reports the database as failing.
      pool.on('error', () => {});
      db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: kyselyPool(pool) }) });
    } else {
      if (!target.dataDir.startsWith('memory://')) await mkdir(target.dataDir, { recursive: true });
      const pglite = await openPGlite(target.dataDir, options.pgliteTemplates);
      db = new Kysely<Tables>({ dialect: new PGliteDialect(pglite) });
      markSingleSession(db);
    }
  } catch (error) {
    throw new CloudctlError('DATABASE_UNAVAILABLE', `${describe(target)}: ${String(error)}`, {
      cause: error,
    });
  }
  const { error, results } = await new Migrator({
    db,
    provider: { getMigrations: async () => ({ ...migrations }) },
  }).migrateToLatest();
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

/** Resolves once the database answers a query; for readiness. */
export async function pingDatabase<Tables>(db: Kysely<Tables>): Promise<void> {
  await sql`select 1`.execute(db);
}
