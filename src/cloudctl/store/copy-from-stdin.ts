// A `copy … from stdin` statement whose rows are its one parameter, in COPY's text format: how the
// cache writes runs of rows. COPY is PostgreSQL's bulk path: the rows go as one stream of text with
// little to escape (JSON needs its backslashes doubled, nothing else), where a statement's
// parameters must be escaped as array literals (every quote of every body) and parsed as such.
// Both dialects run it: pg through pg-copy-streams on the transaction's own connection
// (pg-copy.ts), PGlite from a blob (pglite-dialect.ts).
import { CompiledQuery } from 'kysely';

const COPY_FROM_STDIN = /^copy\s[\s\S]+\sfrom\s+stdin$/i;

export type CopyValue = string | number | null;

/** Sized so that a batch of a sync (a few MiB) takes a few chunks, each sent as it is. */
const CHUNK_BYTES = 1 << 20;
/** About a row of a Kubernetes object (1 to 4 KiB); a longer one takes a chunk of its own size. */
const ROW_BYTES_GUESS = 4096;

/**
 * The rows in COPY's text format (tab between values, a line per row, `\N` for null) as UTF-8
 * bytes, in chunks written a row at a time. One string of every value appended (a rope of a
 * million pieces in a 50k-object sync), flattened and encoded at once, took 0.19 s for what this
 * takes 0.15 s, and held the batch twice as strings (docs/benchmarks.md, "The COPY text").
 */
export class CopyData {
  readonly chunks: Buffer[] = [];

  constructor(rows: ReadonlyArray<readonly CopyValue[]>) {
    // A few rows (a watch's trickle) take a few KiB, not a whole chunk.
    let chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, ROW_BYTES_GUESS * rows.length));
    let at = 0;
    const room = (bytes: number) => {
      if (at + bytes <= chunk.length) return;
      if (at > 0) this.chunks.push(chunk.subarray(0, at));
      chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, bytes));
      at = 0;
    };
    for (const row of rows) {
      // A row's values joined first, then written in one call: a native call per value (two with
      // its length) cost more than the copying it saved.
      let line = '';
      for (let i = 0; i < row.length; i++) {
        const value = row[i];
        if (i > 0) line += '\t';
        line += value === null || value === undefined ? '\\N' : escapeCopyValue(String(value));
      }
      line += '\n';
      room(Buffer.byteLength(line));
      at += chunk.write(line, at);
    }
    if (at > 0) this.chunks.push(chunk.subarray(0, at));
  }
}

/** The rows of a compiled query that is such a statement, for the dialect's COPY path; else undefined. */
export function copyDataOf(sql: string, parameters: readonly unknown[]): CopyData | undefined {
  const [data] = parameters;
  return parameters.length === 1 && data instanceof CopyData && COPY_FROM_STDIN.test(sql) ? data : undefined;
}

const SPECIAL = /[\\\n\r\t]/g;
const ESCAPED: Readonly<Record<string, string>> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A value as COPY's text reads it back. Most need nothing: the API server's JSON has no raw tabs or
 * newlines, and backslashes only in escapes (a ConfigMap's file has one per line), which a native
 * replace doubles several times faster than a replace that calls back for each match.
 */
function escapeCopyValue(value: string): string {
  const raw = value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0 || value.indexOf('\t') >= 0;
  if (raw) return value.replace(SPECIAL, (c) => ESCAPED[c] ?? c);
  return value.indexOf('\\') < 0 ? value : value.replaceAll('\\', '\\\\');
}

/** `copy table (columns) from stdin`, its rows as the parameter. Names are trusted (ours). */
export function copyFromStdin(
  table: string,
  columns: readonly string[],
  rows: ReadonlyArray<readonly CopyValue[]>,
): CompiledQuery {
  const names = columns.map((c) => `"${c}"`).join(', ');
  return CompiledQuery.raw(`copy "${table}" (${names}) from stdin`, [new CopyData(rows)]);
}
