// pg's side of `copy … from stdin` (copy-from-stdin.ts): the statement runs through pg-copy-streams on
// the client it is given (so inside the caller's transaction). postgres-pool.ts routes it here.
import type { PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { CopyData } from './copy-from-stdin.ts';

export async function copyFromStdinWithPg(
  client: pg.PoolClient,
  sql: string,
  data: CopyData,
): Promise<PostgresQueryResult<never>> {
  const stream = client.query(copyFrom(sql));
  await new Promise<void>((resolve, reject) => {
    stream.on('error', reject);
    stream.on('finish', resolve);
    // Every chunk at once: the rows are in memory already, and the socket's own buffer takes them.
    for (const chunk of data.chunks) stream.write(chunk);
    stream.end();
  });
  // pg answers COPY with the command 'COPY', which Kysely's result type does not list; it reads
  // affected rows only for the commands it lists, so none are claimed for the copy.
  return { command: 'COPY' as 'UPDATE', rowCount: stream.rowCount, rows: [] };
}
