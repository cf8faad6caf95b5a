// Reads the watch sequence back as events: the objects, tasks and deployments whose rows carry a
// number in a range, the drifts that started in it and the removals logged in it, merged in number
// order. Each row becomes its
// event once, here, whatever number of clients it goes to; the body of an object is parsed once, for
// its status and figures.

import { type Drift, driftSchema } from '../../contract/index.ts';
import { spinnakerKind } from '../caching/index.ts';
import { type DeploymentStore, deploymentView, type StoredDeployment } from '../deployments/index.ts';
import { driftSentences } from '../drift/index.ts';
import { manifestStatus } from '../manifests/index.ts';
import type { ObjectSummary } from '../read-model/index.ts';
import { type StoredTask, type TaskStore, taskView } from '../tasks/index.ts';
import { objectFigures } from './object-figures.ts';
import type { DeploymentEvent, DriftEvent, ObjectEvent, TaskEvent } from './watch-events.ts';
import type { DriftRow, ObjectRow, RemovalRow, WatchRange, WatchStore } from './watch-store.ts';

/** One event with what decides who may receive it. */
export type WatchRecord = { seq: number } & (
  | { event: 'object'; data: ObjectEvent; account: string; application: string | null }
  | { event: 'drift'; data: DriftEvent; account: string; application: string | null }
  | { event: 'task'; data: TaskEvent; accounts: readonly string[]; application: string | null }
  | { event: 'deployment'; data: DeploymentEvent; accounts: readonly string[]; application: string }
);

/** Where the reader finds rows by watch number, as their stores read them. */
export interface WatchRecordSources {
  watch: Pick<WatchStore, 'objects' | 'removals' | 'drifts'>;
  tasks: Pick<TaskStore, 'numbered'>;
  deployments: Pick<DeploymentStore, 'numbered'>;
}

const apiVersionOf = (group: string, version: string) => (group === '' ? version : `${group}/${version}`);

function moniker(row: {
  application?: unknown;
  cluster?: unknown;
  stack?: unknown;
  detail?: unknown;
  sequence?: unknown;
}): ObjectEvent['moniker'] {
  if (typeof row.application !== 'string' || typeof row.cluster !== 'string') return null;
  return {
    app: row.application,
    cluster: row.cluster,
    ...(typeof row.stack === 'string' ? { stack: row.stack } : {}),
    ...(typeof row.detail === 'string' ? { detail: row.detail } : {}),
    ...(typeof row.sequence === 'number' ? { sequence: row.sequence } : {}),
  };
}

const jsonValue = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);

/** A stored drift (JSON text the cache checked was one); null for none. */
function driftOf(text: string | null): Drift | null {
  if (text === null) return null;
  const parsed = driftSchema.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : null;
}

function changedObject(row: ObjectRow): WatchRecord {
  let body: unknown = {};
  try {
    body = JSON.parse(row.body);
  } catch {
    // Stored only after a check that it is one JSON object (caching-rpc.ts); an empty body reads as none.
  }
  const apiVersion = apiVersionOf(row.api_group, row.api_version);
  const data: ObjectEvent = {
    type: 'changed',
    account: row.account,
    apiGroup: row.api_group,
    apiVersion,
    kind: row.kind,
    spinnakerKind: row.spinnaker_kind ?? spinnakerKind(apiVersion, row.kind),
    namespace: row.namespace,
    name: row.name,
    moniker: moniker(row),
    resourceVersion: row.resource_version,
    ...(row.uid === null ? {} : { uid: row.uid }),
    ...(row.role === null ? {} : { role: row.role }),
    owner:
      row.owner_kind === null || row.owner_name === null
        ? null
        : { kind: row.owner_kind, name: row.owner_name },
    labels: (jsonValue(row.labels) as Record<string, string> | null) ?? {},
    summary: (jsonValue(row.summary) as ObjectSummary | null) ?? {},
    figures: objectFigures(row.api_group, row.kind, body),
    status: manifestStatus(row.api_group, row.kind, body),
    createdTime: row.created_time,
    drift: driftOf(row.drift),
  };
  return { seq: Number(row.seq), event: 'object', data, account: row.account, application: row.application };
}

/** A drift's start; undefined for a stored drift that no longer reads as one. */
function driftRecord(row: DriftRow): WatchRecord | undefined {
  const drift = driftOf(row.drift);
  if (drift === null) return undefined;
  const apiVersion = apiVersionOf(row.api_group, row.api_version);
  const data: DriftEvent = {
    account: row.account,
    apiGroup: row.api_group,
    kind: row.kind,
    spinnakerKind: row.spinnaker_kind ?? spinnakerKind(apiVersion, row.kind),
    namespace: row.namespace,
    name: row.name,
    moniker: moniker(row),
    drift,
    messages: driftSentences(drift),
  };
  return { seq: Number(row.seq), event: 'drift', data, account: row.account, application: row.application };
}

function removedObject(row: RemovalRow): WatchRecord {
  const kept = (jsonValue(row.kept) ?? {}) as Record<string, unknown>;
  const data: ObjectEvent = {
    type: 'removed',
    account: row.account,
    apiGroup: row.api_group,
    kind: row.kind,
    spinnakerKind:
      typeof kept.spinnaker_kind === 'string'
        ? kept.spinnaker_kind
        : spinnakerKind(`${row.api_group}/v1`, row.kind),
    namespace: row.namespace,
    name: row.name,
    moniker: moniker(kept),
  };
  const application = typeof kept.application === 'string' ? kept.application : null;
  return { seq: Number(row.seq), event: 'object', data, account: row.account, application };
}

export class WatchReader {
  readonly #sources: WatchRecordSources;

  constructor(sources: WatchRecordSources) {
    this.#sources = sources;
  }

  /**
   * The events numbered in the range, in order, at most about `limit`, and the number they reach:
   * the range's end, or less when a kind of row filled its limit (the rest is for the next read).
   */
  async read(range: WatchRange): Promise<{ records: WatchRecord[]; reached: number }> {
    const { after, upTo, limit } = range;
    const [objects, removals, drifts, tasks, deployments] = await Promise.all([
      this.#sources.watch.objects(range),
      this.#sources.watch.removals(range),
      this.#sources.watch.drifts(range),
      this.#sources.tasks.numbered(after, upTo, limit),
      this.#sources.deployments.numbered(after, upTo, limit),
    ]);
    // A kind that filled its limit may have more rows past its last: the read reaches no further.
    let reached = upTo;
    const seqs = [objects, removals, drifts].map((rows) => rows.map((r) => Number(r.seq)));
    for (const kind of [...seqs, tasks.map((t) => t.seq), deployments.map((d) => d.seq)]) {
      const last = kind.at(-1);
      if (kind.length >= limit && last !== undefined) reached = Math.min(reached, last);
    }
    const records = [
      ...objects.map(changedObject),
      ...removals.map(removedObject),
      ...drifts.flatMap((row) => driftRecord(row) ?? []),
      ...tasks.map(({ seq, task }) => this.#task(seq, task)),
      ...deployments.map(({ seq, deployment }) => deploymentRecord(seq, deployment)),
    ].filter((r) => r.seq <= reached);
    records.sort((a, b) => a.seq - b.seq);
    return { records, reached };
  }

  #task(seq: number, task: StoredTask): WatchRecord {
    const data: TaskEvent = {
      task: taskView(task),
      accounts: task.accounts,
      application: null,
    };
    return { seq, event: 'task', data, accounts: task.accounts, application: null };
  }
}

function deploymentRecord(seq: number, deployment: StoredDeployment): WatchRecord {
  return {
    seq,
    event: 'deployment',
    data: { deployment: deploymentView(deployment) },
    accounts: deployment.accounts,
    application: deployment.application,
  };
}
