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

export { accountDescriptionSchema as describeAccountResult };
