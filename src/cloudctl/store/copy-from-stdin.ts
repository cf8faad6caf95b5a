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
  const lines: string[] = [];
  for (const row of rows) {
    lines.push(row.map((value) => (value === null ? '\\N' : escapeCopyValue(String(value)))).join('\t'));
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

const SPECIAL = /[\\\n\r\t]/g;
const ESCAPED: Readonly<Record<string, string>> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeCopyValue(value: string): string {
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
