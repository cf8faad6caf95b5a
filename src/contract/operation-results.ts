// The result of each operation type, as JSON inside the proto's `OperationResult.result`: what the
// agent's handler for that type returns (the compiler holds each handler to its schema's input) and
// what cloudctl reads back (it parses each result with the schema, so a reader gets typed fields).
// Kubernetes objects stay whole and unchecked: cloudctl passes them on, it does not model them.
import { z } from 'zod';
import { isRecord } from '../lib/is-record.ts';
import { accountDescriptionSchema, objectRefSchema } from './operation-payloads.ts';

/** An object as the API server answers it; checked to be an object, never copied. */
export const kubeObjectSchema = z.custom<Record<string, unknown>>(isRecord, 'expected an object');

export const appliedObjectSchema = z.object({
  apiVersion: z.string(),
  kind: z.string(),
  namespace: z.string().optional(),
  name: z.string(),
  mode: z.enum(['server-side', 'client-side']),
  uid: z.string(),
  resourceVersion: z.string(),
});
export type AppliedObject = z.infer<typeof appliedObjectSchema>;

export const deployResult = z.object({ applied: z.array(appliedObjectSchema) });

/** `deleted`: this call deleted it; `gone`: it is no longer there (waited for, or already absent). */
export const deleteResult = z.object({ deleted: z.boolean(), gone: z.boolean() });

/** What was deleted; an object already gone is not listed. */
export const deletedObjectsResult = z.object({ deleted: z.array(objectRefSchema) });

export const scaleResult = z.object({ replicas: z.int().min(0).optional() });

export const patchResult = z.object({ object: kubeObjectSchema.nullable(), gone: z.boolean() });

export const rolloutResult = z.object({
  action: z.enum(['undo', 'pause', 'resume', 'restart']),
  /** undo: the revision gone back to. */
  revision: z.number().optional(),
  /** restart: the time written into the pod template. */
  restartedAt: z.string().optional(),
});

export const jobPodResultSchema = z.object({
  name: z.string(),
  phase: z.string().optional(),
  /** Container name → its log, cut at the payload's `logLimitBytes`. */
  logs: z.record(z.string(), z.string()),
  /** Container name → why its log could not be read. */
  logErrors: z.record(z.string(), z.string()).optional(),
});

export const runJobResult = z.object({
  namespace: z.string(),
  name: z.string(),
  /** Absent only when the operation's deadline ended the wait first. */
  outcome: z.enum(['Complete', 'Failed']).optional(),
  status: kubeObjectSchema.optional(),
  pods: z.array(jobPodResultSchema),
});

/** The object, or null when the cluster has none (or the account's watch leaves it out). */
export const getResult = z.object({ object: kubeObjectSchema.nullable() });

export const listResult = z.object({
  items: z.array(kubeObjectSchema),
  resourceVersion: z.string().optional(),
  /** The next page's token; absent on the last page. */
  continue: z.string().optional(),
});

export const eventsResult = z.object({
  events: z.array(
    z.object({
      type: z.string().optional(),
      reason: z.string().optional(),
      message: z.string().optional(),
      count: z.number().optional(),
      firstTimestamp: z.string().optional(),
      lastTimestamp: z.string().optional(),
    }),
  ),
});

export const logsResult = z.object({ log: z.string() });

export const httpRequestResult = z.object({
  status: z.int().min(100).max(599),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
  /** The body was cut at the payload's `maxResponseBytes`. */
  truncated: z.boolean(),
});

/** One write a plan's dry run checked: the verb, and whether the agent's identity may do it. */
export const accessCheckSchema = z.object({
  verb: z.string(),
  group: z.string(),
  resource: z.string(),
  subresource: z.string().optional(),
  namespace: z.string().optional(),
  allowed: z.boolean(),
  /** The authorizer's reason or evaluation error, when it gave one. */
  reason: z.string().optional(),
});
export type AccessCheck = z.infer<typeof accessCheckSchema>;

/**
 * One object a planned operation would touch. `live` and `planned` are scrubbed as the watch scrubs
 * (managedFields dropped); a Secret's values are replaced by digests keyed for this answer only, so
 * cloudctl can tell a changed value from an unchanged one and never learns either.
 */
export const plannedObjectSchema = z.object({
  apiVersion: z.string(),
  kind: z.string(),
  namespace: z.string().optional(),
  name: z.string(),
  /** What the operation would do to it; `none` when the dry run leaves it as it is (a delete of an absent object). */
  action: z.enum(['create', 'update', 'delete', 'none']),
  /** The live object's resourceVersion when planned; null when it does not exist. */
  resourceVersion: z.string().nullable(),
  live: kubeObjectSchema.nullable(),
  /** The object as the API server would leave it (the dry run's answer); null for a delete. */
  planned: kubeObjectSchema.nullable(),
  /** The API server's verdict on the dry run: refused by validation, admission or authorization. */
  dryRun: z.object({ allowed: z.boolean(), reason: z.string().optional(), message: z.string().optional() }),
  access: z.array(accessCheckSchema),
  /** What a dry run cannot tell about this object (a Job's outcome, a namespace this plan creates). */
  unknown: z.array(z.string()).default([]),
});
export type PlannedObject = z.infer<typeof plannedObjectSchema>;

export const planResult = z.object({
  objects: z.array(plannedObjectSchema),
  /** What cannot be planned of the operation as a whole. */
  unknown: z.array(z.string()).default([]),
});

export const versionsResult = z.object({ versions: z.array(z.string().nullable()) });

export { accountDescriptionSchema as describeAccountResult };
