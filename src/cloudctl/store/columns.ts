// Column shapes shared by every feature's tables, as Kysely sees them. Column names are the SQL ones
// (snake_case); each feature declares its own tables beside its migration.
import type { ColumnType } from 'kysely';

export type Timestamp = ColumnType<Date, Date, Date>;
export type NullableTimestamp = ColumnType<Date | null, Date | null, Date | null>;
/** jsonb: written as JSON text (both drivers pass it through), read back parsed. */
export type Json = ColumnType<unknown, string, string>;
export type NullableJson = ColumnType<unknown, string | null, string | null>;
