// Server-side apply with field manager `orch-agent`: the raw manifest is sent as an apply patch, so
// unknown fields keep their ownership. A conflict with another manager is reported field by field;
// `force` takes the fields over. `clearManagedFields` applies with force and then leaves only the
// agent's entry in the managed fields. `manifestDefaults` sends the manifest completed with the
// API server's defaults (see completeWithDefaults). `resourceVersion` (a planned apply's) goes in the
// apply body, so the API server refuses the apply if the object moved since; `dryRun` sends it all as
// a server-side dry run, which writes nothing.
import { type ApiResource, KubeApiError, type KubeHttp, resourcePath } from '../../../kube/index.ts';
import { CodedError } from '../../../lib/coded-error.ts';
import { isRecord } from '../../../lib/is-record.ts';
import { describeManifest, type Manifest } from './manifest.ts';

export const FIELD_MANAGER = 'orch-agent';

export class ApplyConflictError extends CodedError<'APPLY_CONFLICT'> {
  readonly conflicts: Array<{ field: string; manager: string }>;
  constructor(manifest: Manifest, conflicts: Array<{ field: string; manager: string }>) {
    const list = conflicts.map((c) => `${c.field} (owned by ${c.manager})`).join(', ');
    super(
      'APPLY_CONFLICT',
      `${describeManifest(manifest)}: server-side apply conflicts on ${list}; apply with force to take these fields over`,
    );
    this.conflicts = conflicts;
  }
}

/** A planned apply refused by the API server: the object moved since the version the plan saw. */
export class ObjectMovedError extends CodedError<'OBJECT_MOVED'> {
  constructor(manifest: Manifest, resourceVersion: string) {
    super(
      'OBJECT_MOVED',
      `changed since the plan, so it was not written: ${describeManifest(manifest)}: resourceVersion ${resourceVersion} when planned, changed since`,
    );
  }
}

export interface ServerSideApplyOptions {
  force: boolean;
  clearManagedFields: boolean;
  manifestDefaults: boolean;
  signal?: AbortSignal | undefined;
  /** The resourceVersion a plan saw: the API server applies only onto that version. */
  resourceVersion?: string | undefined;
  /** A server-side dry run (`dryRun=All`): validated and admitted, never stored. */
  dryRun?: boolean | undefined;
}

const SERVER_SET_METADATA = [
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'generation',
  'managedFields',
  'selfLink',
];

/**
 * The manifest with the API server's defaults filled in: a dry-run create of the manifest (under a
 * throw-away name, since the object may exist) returns the object as the server would store it;
 * the server-set metadata and status are dropped and the real name restored. Applying that makes the
 * agent the owner of every defaulted field, so a field dropped from a manifest returns to its default
 * even where another manager had set it.
 */
export async function completeWithDefaults(
  http: KubeHttp,
  resource: ApiResource,
  manifest: Manifest,
  signal?: AbortSignal,
) {
  const probeName = `${manifest.metadata.name.slice(0, 200)}-orch-agent-defaults`;
  const probe = { ...manifest, metadata: { ...manifest.metadata, name: probeName } };
  const answer = await http.request({
    verb: 'create',
    method: 'POST',
    path: resourcePath(resource, manifest.metadata.namespace),
    query: { dryRun: 'All', fieldManager: FIELD_MANAGER },
    body: probe,
    signal,
  });
  const { status: _status, metadata, ...rest } = isRecord(answer.body) ? answer.body : {};
  const meta = isRecord(metadata) ? { ...metadata } : {};
  for (const key of SERVER_SET_METADATA) delete meta[key];
  return { ...rest, metadata: { ...meta, name: manifest.metadata.name } };
}

async function apply(
  http: KubeHttp,
  path: string,
  body: unknown,
  force: boolean,
  options: ServerSideApplyOptions,
) {
  const answer = await http.request({
    verb: 'patch',
    method: 'PATCH',
    path,
    query: { fieldManager: FIELD_MANAGER, force, ...(options.dryRun ? { dryRun: 'All' } : {}) },
    contentType: 'application/apply-patch+yaml',
    body,
    signal: options.signal,
  });
  return answer.body;
}

/**
 * Leaves the agent's own entry as the object's only managed-fields entry. Resetting managedFields
 * before applying is not enough: the API server then books the existing fields to
 * `before-first-apply`. Writing the list explicitly replaces it as given.
 */
async function keepOnlyOurManagedFields(
  http: KubeHttp,
  path: string,
  applied: unknown,
  signal?: AbortSignal,
) {
  const metadata = isRecord(applied) && isRecord(applied.metadata) ? applied.metadata : {};
  const entries = Array.isArray(metadata.managedFields) ? metadata.managedFields.filter(isRecord) : [];
  const ours = entries.filter((e) => e.manager === FIELD_MANAGER && e.operation === 'Apply');
  if (ours.length === entries.length) return applied;
  const answer = await http.request({
    verb: 'patch',
    method: 'PATCH',
    path,
    contentType: 'application/merge-patch+json',
    body: { metadata: { managedFields: ours } },
    signal,
  });
  return answer.body;
}

export async function serverSideApply(
  http: KubeHttp,
  resource: ApiResource,
  manifest: Manifest,
  options: ServerSideApplyOptions,
): Promise<unknown> {
  const path = resourcePath(resource, manifest.metadata.namespace, manifest.metadata.name);
  const completed = options.manifestDefaults
    ? await completeWithDefaults(http, resource, manifest, options.signal)
    : manifest;
  const body =
    options.resourceVersion === undefined
      ? completed
      : { ...completed, metadata: { ...completed.metadata, resourceVersion: options.resourceVersion } };
  try {
    const answer = await apply(http, path, body, options.force || options.clearManagedFields, options);
    // A dry run's managed fields are not stored, so there is nothing to trim; they are not shown either.
    return options.clearManagedFields && !options.dryRun
      ? await keepOnlyOurManagedFields(http, path, answer, options.signal)
      : answer;
  } catch (error) {
    // An apply onto a stale resourceVersion is refused as a Conflict without field causes.
    if (
      options.resourceVersion !== undefined &&
      error instanceof KubeApiError &&
      error.status === 409 &&
      error.causes.length === 0
    ) {
      throw new ObjectMovedError(manifest, options.resourceVersion);
    }
    if (
      error instanceof KubeApiError &&
      error.status === 409 &&
      error.reason === 'Conflict' &&
      error.causes.length > 0
    ) {
      throw new ApplyConflictError(
        manifest,
        error.causes.map((c) => ({
          field: c.field,
          manager: /conflict with "([^"]+)"/.exec(c.message)?.[1] ?? c.message,
        })),
      );
    }
    throw error;
  }
}
