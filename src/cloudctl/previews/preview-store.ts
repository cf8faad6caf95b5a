// Previews as stored (preview-tables.ts): opened by a deployment's step (again after a restart: the
// same rows come back), found by token for each forwarded request, listed per deployment, revoked
// once (a conditional update: the first revoke is the one recorded).
import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { PreviewsTable, PreviewTables } from './preview-tables.ts';

/** 256 random bits: a preview URL cannot be guessed, only given. */
const TOKEN_BYTES = 32;

export interface StoredPreview {
  id: string;
  token: string;
  deploymentId: string;
  stepKey: string;
  target: string;
  account: string;
  namespace: string;
  service: string;
  port: string;
  createdAt: Date;
  expiresAt: Date;
  revoked: { at: Date; by: string } | undefined;
}

/** What a step asks for: one preview of one Service. */
export type NewPreview = Omit<StoredPreview, 'id' | 'token' | 'revoked'>;

function toPreview(row: Selectable<PreviewsTable>): StoredPreview {
  return {
    id: row.id,
    token: row.token,
    deploymentId: row.deployment_id,
    stepKey: row.step_key,
    target: row.target,
    account: row.account,
    namespace: row.namespace,
    service: row.service,
    port: row.port,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revoked: row.revoked_at === null ? undefined : { at: row.revoked_at, by: row.revoked_by ?? 'unknown' },
  };
}

export class PreviewStore {
  readonly #db: Kysely<PreviewTables>;

  constructor(db: Kysely<PreviewTables>) {
    this.#db = db;
  }

  /**
   * Opens a preview per entry, each with a new token; an entry whose (deployment, step, Service) has
   * one already keeps it (a step run again after a restart). Answers the stored rows, in entry order.
   */
  async open(entries: readonly NewPreview[]): Promise<StoredPreview[]> {
    if (entries.length === 0) return [];
    await this.#db
      .insertInto('previews')
      .values(
        entries.map((e) => ({
          id: randomUUID(),
          token: randomBytes(TOKEN_BYTES).toString('base64url'),
          deployment_id: e.deploymentId,
          step_key: e.stepKey,
          target: e.target,
          account: e.account,
          namespace: e.namespace,
          service: e.service,
          port: e.port,
          created_at: e.createdAt,
          expires_at: e.expiresAt,
        })),
      )
      .onConflict((c) => c.columns(['deployment_id', 'step_key', 'service']).doNothing())
      .execute();
    const first = entries[0];
    const rows = await this.#db
      .selectFrom('previews')
      .selectAll()
      .where('deployment_id', '=', first?.deploymentId ?? '')
      .where('step_key', '=', first?.stepKey ?? '')
      .execute();
    const byService = new Map(rows.map((r) => [r.service, toPreview(r)]));
    return entries.flatMap((e) => byService.get(e.service) ?? []);
  }

  async byToken(token: string): Promise<StoredPreview | undefined> {
    const row = await this.#db
      .selectFrom('previews')
      .selectAll()
      .where('token', '=', token)
      .executeTakeFirst();
    return row === undefined ? undefined : toPreview(row);
  }

  async byId(id: string): Promise<StoredPreview | undefined> {
    const row = await this.#db.selectFrom('previews').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : toPreview(row);
  }

  /** A deployment's previews, oldest first. */
  async ofDeployment(deploymentId: string): Promise<StoredPreview[]> {
    const rows = await this.#db
      .selectFrom('previews')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .orderBy('created_at')
      .orderBy('service')
      .execute();
    return rows.map(toPreview);
  }

  /** Revokes it unless it was already; answers the preview as stored after. */
  async revoke(id: string, by: string, at: Date): Promise<StoredPreview | undefined> {
    await this.#db
      .updateTable('previews')
      .set({ revoked_at: at, revoked_by: by })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
    return this.byId(id);
  }
}
