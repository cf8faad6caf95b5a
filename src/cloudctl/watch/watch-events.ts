// What `GET /watch` streams: Server-Sent Events, one JSON object per `data:` line. These schemas are
// the contract the status page, `cloudctl get --watch` and `cloudctl deploy -f` read, and the Swagger
// document shows. Every event that reports a change carries an `id:` (the store's watch sequence,
// assigned when the change was stored); a client resumes after it with `Last-Event-ID` (or `?since=`,
// for a browser's first connect), and nothing it has not seen is skipped or sent twice.
//
//   event: position   {position}          first event of every stream: where it starts (its id too)
//   event: object     ObjectEvent         an object changed or was removed
//   event: task       TaskEvent           a task changed (the record GET /task/{id} answers)
//   event: deployment DeploymentEvent     a deployment changed (the record GET /deployments/{id} answers)
//   event: drift      DriftEvent          an object cloudctl deployed was changed by another field manager
//   event: reset      {reason, position}  the client's position is older than the kept window: read again
//   event: closed     {reason}            the last event before cloudctl ends the stream
//   `: heartbeat`                          an SSE comment every 15 s, to keep proxies from closing it
//
// Object events are coalesced per object: a client that resumes gets each object's latest state since
// its position (one event per object, in sequence order), as a Kubernetes watch from a compacted
// revision would, never a state older than one it has seen.
import { z } from 'zod';
import { driftSchema } from '../../contract/index.ts';
import { deploymentViewSchema } from '../deployments/index.ts';
import { manifestStatusSchema } from '../manifests/index.ts';
import { monikerSchema, objectSummarySchema } from '../read-model/index.ts';
import { taskSchema } from '../tasks/index.ts';

export const WATCH_EVENT_TYPES = [
  'position',
  'object',
  'task',
  'deployment',
  'drift',
  'reset',
  'closed',
] as const;
export type WatchEventType = (typeof WATCH_EVENT_TYPES)[number];

/** Figures the page and the CLI show, read from the object as stored (absent where they do not apply). */
export const objectFiguresSchema = z
  .object({
    /** Workloads: desired, current, ready, available and updated replicas as its status reports them. */
    replicas: z
      .object({
        desired: z.int(),
        current: z.int(),
        ready: z.int(),
        available: z.int(),
        updated: z.int(),
      })
      .optional(),
    /** Pods: restarts summed over containers, the node it runs on. */
    restarts: z.int().optional(),
    node: z.string().optional(),
  })
  .describe('WatchObjectFigures');

export const objectEventSchema = z
  .object({
    type: z.enum(['changed', 'removed']),
    account: z.string(),
    /** The API group ('' for the core group), its version and the Kubernetes kind. */
    apiGroup: z.string(),
    apiVersion: z.string().optional(),
    kind: z.string(),
    /** Spinnaker's spelling of the kind (`replicaSet`, `deployment`), as /manifests and /search use. */
    spinnakerKind: z.string(),
    namespace: z.string(),
    name: z.string(),
    /** The application and cluster the object belongs to; null for one that belongs to none. */
    moniker: monikerSchema.nullable(),
    /** Changed only: the object as the read model indexes it. */
    resourceVersion: z.string().optional(),
    uid: z.string().optional(),
    role: z.string().optional(),
    owner: z.object({ kind: z.string(), name: z.string() }).nullable().optional(),
    labels: z.record(z.string(), z.string()).optional(),
    summary: objectSummarySchema.optional(),
    figures: objectFiguresSchema.optional(),
    /** Changed only: the status exactly as GET /manifests/... computes it. */
    status: manifestStatusSchema.optional(),
    createdTime: z.number().nullable().optional(),
    /** Changed only: for an object cloudctl deployed, what other field managers changed since; null: none. */
    drift: driftSchema.nullable().optional(),
  })
  .describe('WatchObjectEvent');

/**
 * An object cloudctl deployed has drifted: another field manager changed its content (a new manager,
 * path or write; not every update of a drifting object). Its object events carry `drift` as it stands.
 */
export const driftEventSchema = z
  .object({
    account: z.string(),
    apiGroup: z.string(),
    kind: z.string(),
    spinnakerKind: z.string(),
    namespace: z.string(),
    name: z.string(),
    moniker: monikerSchema.nullable(),
    drift: driftSchema,
    /** One sentence per manager, as /manifests' `drift` warnings say it. */
    messages: z.array(z.string()),
  })
  .describe('WatchDriftEvent');

export const taskEventSchema = z
  .object({ task: taskSchema, accounts: z.array(z.string()), application: z.string().nullable() })
  .describe('WatchTaskEvent');

export const deploymentEventSchema = z
  .object({ deployment: deploymentViewSchema })
  .describe('WatchDeploymentEvent');

export const positionEventSchema = z
  .object({ position: z.string().describe('the stream starts after this id') })
  .describe('WatchPosition');

export const RESET_REASONS = ['TOO_OLD', 'UNKNOWN_POSITION'] as const;
export const resetEventSchema = z
  .object({
    reason: z.enum(RESET_REASONS),
    message: z.string(),
    /** Where the stream goes on from: read the current state, then apply what follows. */
    position: z.string(),
  })
  .describe('WatchReset');

export const CLOSE_REASONS = ['SLOW_CLIENT', 'SHUTTING_DOWN', 'UNAUTHENTICATED'] as const;
export const closedEventSchema = z
  .object({ reason: z.enum(CLOSE_REASONS), message: z.string() })
  .describe('WatchClosed');

export type ObjectFigures = z.infer<typeof objectFiguresSchema>;
export type ObjectEvent = z.infer<typeof objectEventSchema>;
export type TaskEvent = z.infer<typeof taskEventSchema>;
export type DeploymentEvent = z.infer<typeof deploymentEventSchema>;
export type DriftEvent = z.infer<typeof driftEventSchema>;
export type ResetEvent = z.infer<typeof resetEventSchema>;
export type ClosedEvent = z.infer<typeof closedEventSchema>;

/** What a watch asks for, from the query; `accounts` empty and `application` absent: all readable. */
export const watchQuerySchema = z.object({
  application: z
    .string()
    .min(1)
    .optional()
    .describe('only objects, tasks and deployments of this application'),
  account: z
    .union([z.string().min(1), z.array(z.string().min(1))])
    .optional()
    .describe('only these accounts (repeat the parameter for more)'),
  kinds: z
    .string()
    .optional()
    .describe(
      'comma-separated kinds of objects (Kubernetes `Deployment`, `deployment.apps` or Spinnaker `replicaSet`)',
    ),
  events: z
    .string()
    .optional()
    .describe('comma-separated event types to send: object, task, deployment, drift (default all)'),
  since: z
    .string()
    .optional()
    .describe('resume after this event id (as Last-Event-ID, which wins when both are given)'),
});
export type WatchQuery = z.infer<typeof watchQuerySchema>;
