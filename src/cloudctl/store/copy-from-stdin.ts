// A `copy … from stdin` statement whose rows are its one parameter, in COPY's text format: how the
// cache writes runs of rows. COPY is PostgreSQL's bulk path: the rows go as one stream of text with
// little to escape (JSON needs its backslashes doubled, nothing else), where a statement's
// parameters must be escaped as array literals (every quote of every body) and parsed as such.
// Both dialects run it: pg through pg-copy-streams on the transaction's own connection
// (pg-copy.ts), PGlite from a blob (pglite-dialect.ts).
import { CompiledQuery } from 'kysely';

const COPY_FROM_STDIN = /^copy\s[\s\S]+\sfrom\s+stdin$/i;

export type CopyValue = string | number | null;

/** Whether a compiled query is such a statement, to be run by the dialect's COPY path. */
export function isCopyFromStdin(sql: string, parameters: readonly unknown[]): boolean {
  return parameters.length === 1 && typeof parameters[0] === 'string' && COPY_FROM_STDIN.test(sql);
}

/** The rows in COPY's text format: tab between values, a line per row, `\N` for null. */
export function copyText(rows: ReadonlyArray<readonly CopyValue[]>): string {
  // One string built by appending (V8 joins the pieces once, when it is written): a row of
  // fifteen values costs no arrays of its own.
  let text = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const value = row[i];
      if (i > 0) text += '\t';
      text += value === null || value === undefined ? '\\N' : escapeCopyValue(String(value));
    }
    text += '\n';
  }
  return text;
}

const SPECIAL = /[\\\n\r\t]/g;
const ESCAPED: Readonly<Record<string, string>> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A value as COPY's text reads it back. Most need nothing: the API server's JSON has no raw tabs or
 * newlines, and backslashes only in escapes; four native searches tell so faster than a replace.
 */
function escapeCopyValue(value: string): string {
  if (
    value.indexOf('\\') < 0 &&
    value.indexOf('\n') < 0 &&
    value.indexOf('\r') < 0 &&
    value.indexOf('\t') < 0
  )
    return value;
  return value.replace(SPECIAL, (c) => ESCAPED[c] ?? c);
}

/** `copy table (columns) from stdin`, its rows as the parameter. Names are trusted (ours). */
export function copyFromStdin(
  table: string,
  columns: readonly string[],
  rows: ReadonlyArray<readonly CopyValue[]>,
): CompiledQuery {
  const names = columns.map((c) => `"${c}"`).join(', ');
  return CompiledQuery.raw(`copy "${table}" (${names}) from stdin`, [copyText(rows)]);
}
