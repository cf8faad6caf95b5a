// The payload of each operation type, as JSON inside the proto's `Operation.payload`: what the agent's
// handler for that type accepts (it validates with these schemas), and so what cloudctl may send
// (operations.ts pairs each type with its payload and result schemas). A field changed here changes
// both programs at once, and the compiler shows each sender to fix.
import { z } from 'zod';

/** The reference to one object that most operations take. */
export const objectRefSchema = z.object({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  namespace: z.string().min(1).optional(),
  name: z.string().min(1),
});
export type ObjectRef = z.infer<typeof objectRefSchema>;

/**
 * An object as a plan saw it: its `resourceVersion` then, or null when it did not exist. A write
 * operation that carries these (`expect`) is a planned one: the agent reads each object first and
 * writes nothing unless every one is still as seen (PRECONDITION_FAILED names those that moved).
 */
export const expectedVersionSchema = objectRefSchema.extend({
  resourceVersion: z.string().min(1).nullable(),
});
export type ExpectedVersion = z.infer<typeof expectedVersionSchema>;

/** The preconditions every write operation takes; absent on an ordinary (unplanned) write. */
const expectField = { expect: z.array(expectedVersionSchema).optional() };

export const deployPayload = z.object({
  manifests: z.array(z.unknown()).min(1),
  /** Take over fields another manager owns (server-side apply conflicts). */
  force: z.boolean().default(false),
  ...expectField,
});

export const deletePayload = objectRefSchema.extend({
  propagationPolicy: z.enum(['Foreground', 'Background', 'Orphan']).default('Background'),
  gracePeriodSeconds: z.int().min(0).optional(),
  wait: z.boolean().default(false),
  ...expectField,
});

/** Deletes every object of the kinds in the namespace that the label selector matches. */
export const deleteSelectedPayload = z.object({
  kinds: z.array(z.object({ apiVersion: z.string().min(1), kind: z.string().min(1) })).min(1),
  namespace: z.string().min(1).optional(),
  labelSelector: z.string().min(1),
  propagationPolicy: z.enum(['Foreground', 'Background', 'Orphan']).default('Background'),
  gracePeriodSeconds: z.int().min(0).optional(),
  ...expectField,
});

/** Deletes the named objects (versions a cleanup drops); one already gone is not an error. */
export const deleteObjectsPayload = z.object({
  objects: z.array(objectRefSchema).min(1),
  propagationPolicy: z.enum(['Foreground', 'Background', 'Orphan']).default('Background'),
  ...expectField,
});

export const scalePayload = z.object({
  kind: z.enum(['Deployment', 'ReplicaSet', 'StatefulSet']),
  namespace: z.string().min(1),
  name: z.string().min(1),
  replicas: z.int().min(0),
  ...expectField,
});

export const patchPayload = objectRefSchema.extend({
  patchType: z.enum(['strategic', 'merge', 'json']),
  patch: z.union([z.record(z.string(), z.unknown()), z.array(z.record(z.string(), z.unknown()))]),
  /**
   * An object already gone is success (`{object: null, gone: true}`), not a failure: a pod that
   * disappeared between cloudctl listing a ReplicaSet's pods and the patch needs no new labels.
   */
  ignoreNotFound: z.boolean().default(false),
  ...expectField,
});

export const rolloutPayload = z.object({
  action: z.enum(['undo', 'pause', 'resume', 'restart']),
  kind: z.enum(['Deployment', 'StatefulSet', 'DaemonSet']),
  namespace: z.string().min(1),
  name: z.string().min(1),
  /** undo only: the revision to go back to; the previous one when absent. */
  toRevision: z.int().min(1).optional(),
  ...expectField,
});

export const runJobPayload = z.object({
  manifest: z.looseObject({ apiVersion: z.literal('batch/v1'), kind: z.literal('Job') }),
  /** Bytes of log kept per container. */
  logLimitBytes: z
    .int()
    .min(0)
    .max(4 << 20)
    .default(256 << 10),
  ...expectField,
});

export const getPayload = objectRefSchema.extend({
  /**
   * The object as the account's watch would send it, for the control plane's cache: scrubbed
   * (Secret values blanked, managedFields dropped), and null when the watch leaves it out
   * (onlyPlatformManaged). Secret values then never leave the cluster, not even in the result.
   */
  asCached: z.boolean().default(false),
});

export const listPayload = z.object({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  namespace: z.string().min(1).optional(),
  labelSelector: z.string().optional(),
  fieldSelector: z.string().optional(),
  limit: z.int().min(1).max(5000).default(500),
  continue: z.string().optional(),
  /** Items as the watch would send them (Secret values blanked): what cloudctl may keep in a result. */
  scrubbed: z.boolean().default(false),
});

/** `describeAccount`: what cloudctl needs to place manifests before sending them. */
export const describeAccountPayload = z.object({});

/** The agent's answer to `describeAccount`. */
export const accountDescriptionSchema = z.object({
  /** Where a namespaced manifest without a namespace goes. */
  defaultNamespace: z.string().min(1),
  /** The account's allow-list (empty: every namespace) and deny-list. */
  namespaces: z.array(z.string()),
  omitNamespaces: z.array(z.string()),
});
export type AccountDescription = z.infer<typeof accountDescriptionSchema>;

export const eventsPayload = objectRefSchema.extend({ namespace: z.string().min(1) });

export const logsPayload = z.object({
  namespace: z.string().min(1),
  pod: z.string().min(1),
  container: z.string().min(1).optional(),
  tailLines: z.int().min(1).optional(),
  limitBytes: z
    .int()
    .min(1)
    .max(16 << 20)
    .default(1 << 20),
  previous: z.boolean().default(false),
});

export const httpRequestPayload = z.object({
  method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']),
  url: z.url({ error: 'expected an absolute URL' }),
  headers: z.record(z.string(), z.string()).default({}),
  /** Header name → `encrypted:` reference, resolved by the agent. */
  secretHeaders: z.record(z.string(), z.string()).default({}),
  body: z.string().optional(),
  timeoutMs: z.int().min(1).max(300_000).default(30_000),
  maxResponseBytes: z
    .int()
    .min(0)
    .max(16 << 20)
    .default(1 << 20),
});

/** The operation types a plan may dry-run: every write (reads and `httpRequest` change no cluster). */
export const PLANNABLE_TYPES = [
  'deploy',
  'delete',
  'deleteSelected',
  'deleteObjects',
  'scale',
  'patch',
  'rollout',
  'runJob',
] as const;
export type PlannableType = (typeof PLANNABLE_TYPES)[number];

/**
 * `plan`: what `operation` would do, found without writing anything: each object it would touch read
 * live, the write sent as a server-side dry run (`dryRun=All`), and the agent's own identity asked
 * (SelfSubjectAccessReview) whether it may do each write. The inner payload is checked against its
 * type's schema by the agent, as if it were sent on its own.
 */
export const planPayload = z.object({
  operation: z.object({ type: z.enum(PLANNABLE_TYPES), payload: z.unknown() }),
});

/** `versions`: each object's live `resourceVersion` (null when absent), in the order asked. */
export const versionsPayload = z.object({ objects: z.array(objectRefSchema).min(1).max(1000) });
