// Deployments as stored: the file as submitted (its text, manifests inline, parsed again when a run
// is carried on, so the stored form is the one users wrote), the progress of every target, and the
// gates runs wait on. A gate is decided once: the first verdict wins, and the answer to a later one
// says whether it agreed.
import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import { nextWatchSeq, WatchSignal, writeOneInSequence } from '../../store/index.ts';
import { type DeploymentProgress, progressSchema } from './deployment-progress.ts';
import { DEPLOYMENT_STATUSES, type DeploymentStatus } from './deployment-state.ts';
import type { DeploymentGatesTable, DeploymentsTable, DeploymentTables } from './deployment-tables.ts';

export interface StoredDeployment {
  id: string;
  application: string;
  status: DeploymentStatus;
  createdBy: string;
  accounts: string[];
  /** The deployment file's text, manifests inline, and the name it was submitted under. */
  file: { name: string; text: string };
  progress: DeploymentProgress;
  createdAt: Date;
  updatedAt: Date;
}

export type GateKind = 'approval' | 'callback';

export interface Gate {
  id: string;
  deploymentId: string;
  stepKey: string;
  kind: GateKind;
  verdict: boolean | null;
  message: string | null;
  decidedBy: string | null;
  decidedAt: Date | null;
}

export type GateDecision =
  | { outcome: 'decided'; gate: Gate }
  /** Already decided the same way: a repeat, answered as success. */
  | { outcome: 'repeated'; gate: Gate }
  /** Already decided the other way: the first verdict stands. */
  | { outcome: 'conflict'; gate: Gate }
  | { outcome: 'unknown' };

const fileSchema = z.object({ name: z.string(), text: z.string() });
const accountsSchema = z.array(z.string());
const statusSchema = z.enum(DEPLOYMENT_STATUSES);

function toDeployment(row: Selectable<DeploymentsTable>): StoredDeployment {
  return {
    id: row.id,
    application: row.application,
    status: statusSchema.parse(row.status),
    createdBy: row.created_by,
    accounts: accountsSchema.parse(row.accounts),
    file: fileSchema.parse(row.plan),
    progress: progressSchema.parse(row.progress),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toGate(row: Selectable<DeploymentGatesTable>): Gate {
  return {
    id: row.id,
    deploymentId: row.deployment_id,
    stepKey: row.step_key,
    kind: row.kind === 'callback' ? 'callback' : 'approval',
    verdict: row.verdict,
    message: row.message,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at,
  };
}

export class DeploymentStore {
  readonly #db: Kysely<DeploymentTables>;

  readonly #signal: WatchSignal;

  constructor(db: Kysely<DeploymentTables>, signal = new WatchSignal()) {
    this.#db = db;
    this.#signal = signal;
  }

  async create(deployment: StoredDeployment): Promise<void> {
    await writeOneInSequence(this.#db, (db) =>
      db
        .insertInto('deployments')
        .values({
          id: deployment.id,
          application: deployment.application,
          status: deployment.status,
          created_by: deployment.createdBy,
          accounts: JSON.stringify(deployment.accounts),
          plan: JSON.stringify(deployment.file),
          progress: JSON.stringify(deployment.progress),
          created_at: deployment.createdAt,
          updated_at: deployment.updatedAt,
        })
        .execute(),
    );
    this.#signal.changed();
  }

  async get(id: string): Promise<StoredDeployment | undefined> {
    const row = await this.#db.selectFrom('deployments').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : toDeployment(row);
  }

  /** The newest first. */
  async list(limit: number): Promise<StoredDeployment[]> {
    const rows = await this.#db
      .selectFrom('deployments')
      .selectAll()
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toDeployment);
  }

  /** Deployments written with a watch number in (after, upTo], in number order, at most `limit` (watch/). */
  async numbered(
    after: number,
    upTo: number,
    limit: number,
  ): Promise<{ seq: number; deployment: StoredDeployment }[]> {
    const rows = await this.#db
      .selectFrom('deployments')
      .selectAll()
      .where('watch_seq', '>', String(after))
      .where('watch_seq', '<=', String(upTo))
      .orderBy('watch_seq')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ seq: Number(row.watch_seq), deployment: toDeployment(row) }));
  }

  async unfinished(): Promise<StoredDeployment[]> {
    const rows = await this.#db
      .selectFrom('deployments')
      .selectAll()
      .where('status', '=', 'RUNNING')
      .orderBy('created_at')
      .execute();
    return rows.map(toDeployment);
  }

  async save(id: string, status: DeploymentStatus, progress: DeploymentProgress, now: Date): Promise<void> {
    await writeOneInSequence(this.#db, (db) =>
      db
        .updateTable('deployments')
        .set({ status, progress: JSON.stringify(progress), updated_at: now, watch_seq: nextWatchSeq })
        .where('id', '=', id)
        .execute(),
    );
    this.#signal.changed();
  }

  /** Opens a gate if it is not open yet (a restart reopens the same one). */
  async openGate(gate: { id: string; deploymentId: string; stepKey: string; kind: GateKind }, now: Date) {
    await this.#db
      .insertInto('deployment_gates')
      .values({
        id: gate.id,
        deployment_id: gate.deploymentId,
        step_key: gate.stepKey,
        kind: gate.kind,
        verdict: null,
        message: null,
        decided_by: null,
        decided_at: null,
        created_at: now,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }

  async gate(id: string): Promise<Gate | undefined> {
    const row = await this.#db
      .selectFrom('deployment_gates')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : toGate(row);
  }

  /** Records a verdict unless one is recorded already: the first wins, on any replica. */
  async decide(
    id: string,
    decision: { verdict: boolean; message: string | null; by: string },
    now: Date,
  ): Promise<GateDecision> {
    const row = await this.#db
      .updateTable('deployment_gates')
      .set({ verdict: decision.verdict, message: decision.message, decided_by: decision.by, decided_at: now })
      .where('id', '=', id)
      .where('verdict', 'is', null)
      .returningAll()
      .executeTakeFirst();
    if (row !== undefined) return { outcome: 'decided', gate: toGate(row) };
    const gate = await this.gate(id);
    if (gate === undefined) return { outcome: 'unknown' };
    return gate.verdict === decision.verdict ? { outcome: 'repeated', gate } : { outcome: 'conflict', gate };
  }
}
