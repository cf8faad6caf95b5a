// The watch sequence: one number that goes up with every change a watcher of cloudctl may follow (an
// object stored or removed, a task or a deployment written). Writers stamp each row they write with
// the next number, in the transaction that writes it; `GET /watch` streams rows in that order and
// resumes after the number a client saw last.
//
// A sequence's numbers are handed out when asked, not when their transactions commit: a reader that
// saw 7 committed may later find 5 committed by a slower transaction, and a client resumed at 7 would
// miss it. So writers hold the sequence's advisory lock shared from the first statement of their
// transaction to its commit, and a reader takes it exclusively for an instant to learn the horizon:
// once it holds the lock every transaction that took a number before has ended, so every number up to
// the sequence's value is final. Writers never wait for each other; a reader waits for the writers in
// flight (one batch of ingest), and new writers wait for that instant. Shared first, before any row
// lock, so no writer holds a row another waits for while it queues behind a reader.
import { type Generated, type Kysely, sql, type Transaction } from 'kysely';
import { isSingleSession } from './single-session.ts';

export const WATCH_SEQUENCE = 'watch_seq';
/** The advisory lock's key: any fixed number no other part of cloudctl uses ('watc'). */
const LOCK_KEY = 0x77617463;

/** A table's column of watch numbers: its default takes the next one (rows older than it took one when it was added). */
export type WatchSeqColumn = Generated<string | null>;

/** The next number, as a value in a statement (`set watch_seq = ${nextWatchSeq}`). */
export const nextWatchSeq = sql<string>`nextval('watch_seq')`;

/** Holds the sequence for this transaction's writes: its first statement, before any row is written. */
export async function holdWatchSequence<DB>(tx: Transaction<DB>): Promise<void> {
  await sql`select pg_advisory_xact_lock_shared(${sql.lit(LOCK_KEY)})`.execute(tx);
}

/** Runs `write` in a transaction that holds the sequence; for writers of one statement. */
export function writeInSequence<DB, T>(
  db: Kysely<DB>,
  write: (tx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (tx) => {
    await holdWatchSequence(tx);
    return write(tx);
  });
}

/**
 * Runs a writer of one statement in the sequence. On a database of one session (single-session.ts)
 * no other writer can hold a number uncommitted while this one runs, and one statement commits whole,
 * so it runs as it is; elsewhere in a transaction holding the sequence (writeInSequence). That spares
 * a BEGIN and a COMMIT on each such write: two of them are on a deploy's path (bench:ops-latency).
 */
export function writeOneInSequence<DB, T>(db: Kysely<DB>, write: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  return isSingleSession(db) ? write(db) : writeInSequence(db, write);
}

/** The highest number every writer that took it has committed or abandoned; 0 before the first. */
export function watchHorizon<DB>(db: Kysely<DB>): Promise<number> {
  return db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(${sql.lit(LOCK_KEY)})`.execute(tx);
    const { rows } = await sql<{
      value: string;
    }>`select case when is_called then last_value else 0 end::text as value
      from watch_seq`.execute(tx);
    return Number(rows[0]?.value ?? 0);
  });
}

/**
 * Tells this process's watchers that numbered rows were committed: stores call it after each commit,
 * so a watcher reads at once rather than on a timer. Listeners run synchronously and must not throw.
 */
export class WatchSignal {
  readonly #listeners = new Set<() => void>();

  changed(): void {
    for (const listener of this.#listeners) listener();
  }

  /** Returns what stops listening. */
  listen(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
