// Credentials definitions as stored: the current definition per account and its revisions. Each write
// is one transaction over both tables, so the history never disagrees with the current state; the
// primary key on the name settles concurrent creates (one wins, the other finds it taken).
import type { Kysely, Selectable } from 'kysely';
import { sql } from 'kysely';
import { z } from 'zod';
import { errorCode, isRecord } from '../../lib/is-record.ts';
import type { AccountPermissions } from '../auth/index.ts';
import type { ChangeCounter } from '../store/index.ts';
import type { CredentialRevisionsTable, CredentialsTable, CredentialTables } from './credential-tables.ts';

export interface CredentialsWrite {
  name: string;
  type: string;
  /** The validated definition, stored and returned as it is. */
  definition: Record<string, unknown>;
  permissions: AccountPermissions;
}

export interface StoredCredentials extends CredentialsWrite {
  /** The version of the newest revision. */
  version: number;
  /** The cloudctl config file that declares the account, if one does: then it is read-only here. */
  configFile: string | undefined;
  createdAt: Date;
  updatedAt: Date;
}

export interface CredentialsRevision {
  name: string;
  /** 1 for the first write of the name; deletes and re-creations go on counting. */
  version: number;
  timestamp: Date;
  deleted: boolean;
  /** Null for a delete. */
  definition: Record<string, unknown> | null;
  /** The definition's; for a delete, those of what was deleted. */
  permissions: AccountPermissions;
}

export interface TypePage {
  limit: number;
  /** The first name of the page, if stored (inclusive). */
  startingAt?: string | undefined;
  /** The name the page starts after (exclusive): the last of the page before. */
  after?: string | undefined;
}

const permissionsSchema = z.object({ read: z.array(z.string()), write: z.array(z.string()) });

/** PostgreSQL's unique_violation: the name is taken. */
const UNIQUE_VIOLATION = '23505';

function asDefinition(value: unknown): Record<string, unknown> {
  if (!isRecord(value)) throw new Error('a stored credentials definition is not a JSON object');
  return value;
}

function toStored(row: Selectable<CredentialsTable>): StoredCredentials {
  return {
    name: row.name,
    type: row.type,
    definition: asDefinition(row.definition),
    permissions: permissionsSchema.parse(row.permissions),
    version: row.version,
    configFile: row.config_file ?? undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toRevision(row: Selectable<CredentialRevisionsTable>): CredentialsRevision {
  return {
    name: row.name,
    version: row.version,
    timestamp: row.created_at,
    deleted: row.deleted,
    definition: row.definition === null ? null : asDefinition(row.definition),
    permissions: permissionsSchema.parse(row.permissions),
  };
}

export class CredentialStore {
  readonly #db: Kysely<CredentialTables>;
  readonly #accountChanges: ChangeCounter;

  constructor(db: Kysely<CredentialTables>, accountChanges: ChangeCounter) {
    this.#db = db;
    this.#accountChanges = accountChanges;
  }

  /** Stores a new definition as the name's next revision; 'exists' when the name is taken. */
  async create(write: CredentialsWrite, now: Date): Promise<StoredCredentials | 'exists'> {
    try {
      return await this.#db.transaction().execute(async (tx) => {
        // A name deleted earlier keeps its history: versions and timestamps go on from there.
        const last = await tx
          .selectFrom('credential_revisions')
          .select([
            sql<number>`coalesce(max(version), 0)`.as('version'),
            sql<Date | null>`max(created_at)`.as('at'),
          ])
          .where('name', '=', write.name)
          .executeTakeFirstOrThrow();
        const at = last.at !== null && last.at > now ? last.at : now;
        const row = await tx
          .insertInto('credentials')
          .values({
            name: write.name,
            type: write.type,
            definition: JSON.stringify(write.definition),
            permissions: JSON.stringify(write.permissions),
            version: Number(last.version) + 1,
            created_at: at,
            updated_at: at,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await tx.insertInto('credential_revisions').values(revisionOf(row)).execute();
        return toStored(row);
      });
    } catch (error) {
      if (errorCode(error) === UNIQUE_VIOLATION) return 'exists';
      throw error;
    } finally {
      this.#accountChanges.changed();
    }
  }

  /** Replaces the definition, as the next revision; 'missing' when there is none to replace. */
  async update(write: CredentialsWrite, now: Date): Promise<StoredCredentials | 'missing'> {
    try {
      return await this.#db.transaction().execute(async (tx) => {
        // The row lock taken here orders concurrent writes of one name; each gets its own version.
        const row = await tx
          .updateTable('credentials')
          .set({
            type: write.type,
            definition: JSON.stringify(write.definition),
            permissions: JSON.stringify(write.permissions),
            version: sql<number>`version + 1`,
            // A revision is never older than the one before it, even if the clock steps back.
            updated_at: sql<Date>`greatest(${now}::timestamptz, updated_at)`,
          })
          .where('name', '=', write.name)
          .returningAll()
          .executeTakeFirst();
        if (row === undefined) return 'missing';
        await tx.insertInto('credential_revisions').values(revisionOf(row)).execute();
        return toStored(row);
      });
    } finally {
      this.#accountChanges.changed();
    }
  }

  /** Removes the definition and records the delete as a revision; 'missing' when there is none. */
  async delete(name: string, now: Date): Promise<CredentialsRevision | 'missing'> {
    try {
      return await this.#db.transaction().execute(async (tx) => {
        const row = await tx
          .deleteFrom('credentials')
          .where('name', '=', name)
          .returningAll()
          .executeTakeFirst();
        if (row === undefined) return 'missing';
        const at = row.updated_at > now ? row.updated_at : now;
        const revision = await tx
          .insertInto('credential_revisions')
          .values({
            name,
            version: row.version + 1,
            deleted: true,
            definition: null,
            permissions: JSON.stringify(row.permissions),
            created_at: at,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return toRevision(revision);
      });
    } finally {
      this.#accountChanges.changed();
    }
  }

  /** Marks the account as declared in `file`, or (null) as the API's own. */
  async setConfigFile(name: string, file: string | null): Promise<void> {
    await this.#db.updateTable('credentials').set({ config_file: file }).where('name', '=', name).execute();
    this.#accountChanges.changed();
  }

  /** The accounts a config file declares, any file. */
  async declaredInFiles(): Promise<StoredCredentials[]> {
    const rows = await this.#db
      .selectFrom('credentials')
      .selectAll()
      .where('config_file', 'is not', null)
      .orderBy('name')
      .execute();
    return rows.map(toStored);
  }

  async get(name: string): Promise<StoredCredentials | undefined> {
    const row = await this.#db
      .selectFrom('credentials')
      .selectAll()
      .where('name', '=', name)
      .executeTakeFirst();
    return row === undefined ? undefined : toStored(row);
  }

  /** Every current definition, by name. */
  async list(): Promise<StoredCredentials[]> {
    const rows = await this.#db.selectFrom('credentials').selectAll().orderBy('name').execute();
    return rows.map(toStored);
  }

  /** Up to `limit` definitions of one type, by name, from `startingAt` or `after` a name. */
  async listByType(type: string, page: TypePage): Promise<StoredCredentials[]> {
    let query = this.#db.selectFrom('credentials').selectAll().where('type', '=', type);
    if (page.startingAt !== undefined) query = query.where('name', '>=', page.startingAt);
    if (page.after !== undefined) query = query.where('name', '>', page.after);
    const rows = await query.orderBy('name').limit(page.limit).execute();
    return rows.map(toStored);
  }

  /** Every revision of the name, deletes included, newest first (the order of the API we mirror). */
  async history(name: string): Promise<CredentialsRevision[]> {
    const rows = await this.#db
      .selectFrom('credential_revisions')
      .selectAll()
      .where('name', '=', name)
      .orderBy('version', 'desc')
      .execute();
    return rows.map(toRevision);
  }
}

/** The revision a create or an update writes: the row as it now stands. */
function revisionOf(row: Selectable<CredentialsTable>) {
  return {
    name: row.name,
    version: row.version,
    deleted: false,
    definition: JSON.stringify(row.definition),
    permissions: JSON.stringify(row.permissions),
    created_at: row.updated_at,
  };
}
