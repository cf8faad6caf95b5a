// The control plane's database floor: PostgreSQL through Kysely, embedded (PGlite) or a server (pg),
// brought up to date with the migrations it is given, the shapes of columns, and the change counter.
// It knows no feature: each feature declares its tables and migration, the composition root lists them.
export { ChangeCounter } from './change-counter.ts';
export type { Json, NullableJson, NullableTimestamp, Timestamp } from './columns.ts';
export { copyFromStdin } from './copy-from-stdin.ts';
export { type DatabaseTarget, type OpenDatabaseOptions, openDatabase, pingDatabase } from './database.ts';
export { defaultTemplateFolder } from './pglite-template.ts';
export { prepared } from './prepared-statement.ts';
export { isSingleSession } from './single-session.ts';
export {
  holdWatchSequence,
  nextWatchSeq,
  WATCH_SEQUENCE,
  type WatchSeqColumn,
  WatchSignal,
  watchHorizon,
  writeInSequence,
  writeOneInSequence,
} from './watch-sequence.ts';
