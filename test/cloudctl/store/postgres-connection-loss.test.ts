// PostgreSQL going away while cloudctl holds one of its connections (inside a transaction, between two
// statements) must fail that work where it is made, not end the process: pg emits 'error' on a client
// whose socket dies, and a client handed out by the pool has no listener of its own. CI lost a replica
// this way when PostgreSQL was stopped under load.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/cloudctl/store/index.ts';
import { type PostgresServer, startPostgres } from '../../support/postgres-server.ts';

let postgres: PostgresServer;

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);

afterAll(async () => {
  await postgres?.stop();
});

describe('a PostgreSQL connection lost while cloudctl holds it', () => {
  it('fails the transaction holding it, keeps the process, and serves again once PostgreSQL is back', async () => {
    const db = await openDatabase({ kind: 'postgres', url: postgres.url }, {});
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', record);
    try {
      let inside!: () => void;
      const holding = new Promise<void>((resolve) => {
        inside = resolve;
      });
      let killed!: () => void;
      const afterKill = new Promise<void>((resolve) => {
        killed = resolve;
      });
      const transaction = db.transaction().execute(async (tx) => {
        await sql`select 1`.execute(tx);
        inside();
        // The connection is checked out and idle here when PostgreSQL stops.
        await afterKill;
        await sql`select 2`.execute(tx);
      });
      const outcome = transaction.then(
        () => 'committed',
        (error: unknown) => String(error),
      );
      await holding;
      await postgres.kill();
      // Give the dying socket's events time to arrive while the connection is still held.
      await new Promise((resolve) => setTimeout(resolve, 500));
      killed();
      expect(await outcome).not.toBe('committed');
      expect(uncaught).toEqual([]);

      await postgres.restart();
      await expect
        .poll(
          async () =>
            sql<{ n: number }>`select 3 as n`.execute(db).then(
              (result) => result.rows[0]?.n,
              () => undefined,
            ),
          { timeout: 20_000 },
        )
        .toBe(3);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', record);
      await db.destroy();
    }
  }, 60_000);
});
