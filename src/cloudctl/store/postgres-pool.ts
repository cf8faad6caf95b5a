// The pool Kysely is given: pg's, with clients that run `copy … from stdin` (pg-copy.ts) and that
// survive PostgreSQL going away while they are checked out.
//
// pg emits 'error' on a client whose connection dies, even when a query is running (the query fails
// too). The pool listens only while a client is idle, so a checked-out client, such as one held by a
// transaction between two statements, had no listener, and the event ended the process. Here each
// checked-out client has one; the work using it fails where it is made (its next query is refused),
// and the client is destroyed on release instead of going back to the pool.
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { isCopyFromStdin } from './copy-from-stdin.ts';
import { copyFromStdinWithPg } from './pg-copy.ts';

function heldClient(client: pg.PoolClient): PostgresPoolClient {
  let lost = false;
  const onError = () => {
    lost = true;
  };
  client.on('error', onError);
  return {
    query: ((sqlOrCursor: unknown, parameters?: readonly unknown[]) => {
      if (
        typeof sqlOrCursor === 'string' &&
        parameters !== undefined &&
        isCopyFromStdin(sqlOrCursor, parameters)
      )
        return copyFromStdinWithPg(client, sqlOrCursor, parameters[0] as string);
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
