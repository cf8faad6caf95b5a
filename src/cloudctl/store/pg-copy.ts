// pg's side of `copy … from stdin` (copy-from-stdin.ts): a pool whose clients run such a statement
// through pg-copy-streams on their own connection (so inside the caller's transaction), and pass
// every other query to pg unchanged. Kysely's PostgreSQL dialect is given this pool.
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { isCopyFromStdin } from './copy-from-stdin.ts';

async function copy(client: pg.PoolClient, sql: string, data: string): Promise<PostgresQueryResult<never>> {
  const stream = client.query(copyFrom(sql));
  await new Promise<void>((resolve, reject) => {
    stream.on('error', reject);
    stream.on('finish', resolve);
    stream.end(data);
  });
  // pg answers COPY with the command 'COPY', which Kysely's result type does not list; it reads
  // affected rows only for the commands it lists, so none are claimed for the copy.
  return { command: 'COPY' as 'UPDATE', rowCount: stream.rowCount, rows: [] };
}

function copyCapableClient(client: pg.PoolClient): PostgresPoolClient {
  return {
    query: ((sqlOrCursor: unknown, parameters?: readonly unknown[]) => {
      if (
        typeof sqlOrCursor === 'string' &&
        parameters !== undefined &&
        isCopyFromStdin(sqlOrCursor, parameters)
      )
        return copy(client, sqlOrCursor, parameters[0] as string);
      return (client.query as (...args: unknown[]) => unknown)(sqlOrCursor, parameters);
    }) as PostgresPoolClient['query'],
    release: (destroy?: boolean) => client.release(destroy),
  };
}

/** The pool Kysely is given: pg's, with clients that run `copy … from stdin`. */
export function copyCapablePool(pool: pg.Pool): PostgresPool {
  return {
    connect: async () => copyCapableClient(await pool.connect()),
    end: () => pool.end(),
  };
}
