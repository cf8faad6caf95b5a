// The pool Kysely is given: pg's, with clients that run `copy … from stdin` (pg-copy.ts) and named
// statements (prepared-statement.ts), and that survive PostgreSQL going away while checked out.
//
// pg emits 'error' on a client whose connection dies, even when a query is running (the query fails
// too). The pool listens only while a client is idle, so a checked-out client, such as one held by a
// transaction between two statements, had no listener, and the event ended the process. Here each
// checked-out client has one; the work using it fails where it is made (its next query is refused),
// and the client is destroyed on release instead of going back to the pool.
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { copyDataOf } from './copy-from-stdin.ts';
import { copyFromStdinWithPg } from './pg-copy.ts';
import { preparedName } from './prepared-statement.ts';

/**
 * PostgreSQL's refusal to run a named statement this client believes prepared: its result columns
 * changed under it (a migration, another replica's during an upgrade), or the server session does
 * not hold it (DEALLOCATE, `DISCARD ALL`, or a pooler in front that hands each transaction another
 * server connection).
 */
function isStalePlan(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as { code?: unknown };
  return (
    (code === '0A000' && error.message.includes('cached plan must not change result type')) ||
    code === '26000'
  );
}

function heldClient(client: pg.PoolClient): PostgresPoolClient {
  let lost = false;
  const onError = () => {
    lost = true;
  };
  client.on('error', onError);
  return {
    query: ((sqlOrCursor: unknown, parameters?: readonly unknown[]) => {
      if (typeof sqlOrCursor === 'string' && parameters !== undefined) {
        const copyData = copyDataOf(sqlOrCursor, parameters);
        if (copyData !== undefined) return copyFromStdinWithPg(client, sqlOrCursor, copyData);
        const name = preparedName(sqlOrCursor);
        if (name !== undefined)
          return client
            .query({ name, text: sqlOrCursor, values: [...parameters] })
            .catch((error: unknown) => {
              if (!isStalePlan(error)) throw error;
              // pg would send the stale name again on every use of this connection: it is dropped
              // when released, and this read runs unnamed.
              lost = true;
              return client.query(sqlOrCursor, [...parameters]);
            });
      }
      return (client.query as (...args: unknown[]) => unknown)(sqlOrCursor, parameters);
    }) as PostgresPoolClient['query'],
    release: (destroy?: boolean) => {
      client.removeListener('error', onError);
      client.release(destroy === true || lost);
    },
  };
}

/** The pool Kysely is given: pg's, whose checked-out clients run `copy … from stdin` and outlive a lost connection. */
export function kyselyPool(pool: pg.Pool): PostgresPool {
  return {
    connect: async () => heldClient(await pool.connect()),
    end: () => pool.end(),
  };
}
