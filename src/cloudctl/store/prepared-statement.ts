// A statement PostgreSQL keeps parsed and planned on each connection, for the few reads that are
// expensive to plan and run often with other values. The read of an application's view plans in
// about 4 ms and runs in about 1 ms: unnamed, as Kysely sends every statement, it was planned again
// on every read. A query opts in by starting with `prepared` (a comment, so any database reads it
// as written); the pool (postgres-pool.ts) sends it as a named statement, named by its text, so two
// texts never share a name and the same text always does. Its values must be parameters (an array
// for a list), or each list length would be a statement of its own. PGlite runs it as any query.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';

const MARK = '/* prepared */ ';

/** Put first in a `sql` template: the statement is prepared once per connection. */
export const prepared = sql.raw(MARK);

/** The statement's name when it asks to be prepared (it starts with `prepared`), else undefined. */
export function preparedName(text: string): string | undefined {
  if (!text.startsWith(MARK)) return undefined;
  return `prepared_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}
