// Kysely dialect over embedded PGlite: Kysely's own PostgreSQL adapter, compiler and introspector,
// with a driver that hands out PGlite's single connection to one user at a time, runs
// `copy … from stdin` from a blob, and skips transaction-level advisory locks (one session needs none).
import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { copyDataOf } from './copy-from-stdin.ts';

/**
 * A transaction-level advisory lock (watch-sequence.ts takes one in every writing transaction). PGlite
 * is one session and the driver runs one transaction at a time, so nothing can hold or wait for such
 * a lock, and it ends with the transaction anyway: the connection answers it without running it,
 * sparing a statement on every write (bench:ops-latency).
 */
const TRANSACTION_LOCK = /^select pg_advisory_xact_lock(_shared)?\(/;

class PGliteConnection implements DatabaseConnection {
  readonly #db: PGlite;

  constructor(db: PGlite) {
    this.#db = db;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    if (TRANSACTION_LOCK.test(compiled.sql)) return { rows: [] };
    // `copy … from stdin` with its rows as the parameter (copy-from-stdin.ts): PGlite reads them
    // from a blob, as its `/dev/blob` file.
    const copyData = copyDataOf(compiled.sql, compiled.parameters);
    const result =
      copyData !== undefined
        ? await this.#db.query<R>(compiled.sql.replace(/stdin$/i, "'/dev/blob'"), [], {
            blob: new Blob(copyData.chunks),
          })
        : await this.#db.query<R>(compiled.sql, [...compiled.parameters]);
    return result.affectedRows === undefined
      ? { rows: result.rows }
      : { rows: result.rows, numAffectedRows: BigInt(result.affectedRows) };
  }

  async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    // PGlite returns whole results; one chunk is the honest stream.
    yield await this.executeQuery<R>(compiled);
  }
}

class PGliteDriver implements Driver {
  readonly #db: PGlite;
  readonly #connection: PGliteConnection;
  /**
   * PGlite is one session. A transaction holds it from BEGIN to COMMIT, so every other query waits
   * here instead of running inside someone else's transaction.
   */
  #queue: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(db: PGlite) {
    this.#db = db;
    this.#connection = new PGliteConnection(db);
  }

  async init(): Promise<void> {
    await this.#db.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#queue;
    let release: () => void = () => undefined;
    this.#queue = new Promise((resolve) => {
      release = resolve;
    });
    await previous;
    this.#release = release;
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    const access = settings.accessMode ? ` ${settings.accessMode}` : '';
    await connection.executeQuery(CompiledQuery.raw(`begin${isolation}${access}`));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {
    await this.#queue;
    await this.#db.close();
  }
}

export class PGliteDialect implements Dialect {
  readonly #db: PGlite;

  constructor(db: PGlite) {
    this.#db = db;
  }

  createAdapter() {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PGliteDriver(this.#db);
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }

  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}
