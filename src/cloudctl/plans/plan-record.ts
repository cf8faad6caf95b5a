// A plan as the HTTP API answers it (GET /plans/{id}, POST /plans): what each operation would do to
// each object, the field-level diff against the live object, the API server's dry-run verdict and
// whether the agent's identity may do each write. The CLI and the status page read this shape only.
import { z } from 'zod';
import { accessCheckSchema, plannedObjectSchema } from '../../contract/index.ts';

/** One changed field: its JSON path (`spec.template.spec.containers[0].image`), before and after. */
export const planChangeSchema = z
  .object({
    path: z.string(),
    /** Absent: the field is added. */
    before: z.unknown().optional(),
    /** Absent: the field is removed. */
    after: z.unknown().optional(),
    /** A Secret value: `before`/`after` are `(hidden)`; only that it changes is known. */
    secret: z.boolean().optional(),
  })
  .describe('PlanChange');
export type PlanChange = z.infer<typeof planChangeSchema>;

export const plannedObjectRecordSchema = z
  .object({
    apiVersion: z.string(),
    kind: z.string(),
    namespace: z.string().optional(),
    name: z.string(),
    /** `unchanged`: the dry run leaves the object as it is (no field of the diff changes). */
    action: z.enum(['create', 'update', 'unchanged', 'delete', 'none']),
    /** The live resourceVersion the plan saw; null: the object did not exist. */
    resourceVersion: z.string().nullable(),
    diff: z.array(planChangeSchema),
    /** The API server's verdict on the dry run, as the agent answered it. */
    dryRun: plannedObjectSchema.shape.dryRun,
    /** Every write checked with a SelfSubjectAccessReview; `allowed` false names what is missing. */
    access: z.array(accessCheckSchema),
    unknown: z.array(z.string()),
  })
  .describe('PlannedObject');
export type PlannedObjectRecord = z.infer<typeof plannedObjectRecordSchema>;

export const plannedOperationSchema = z
  .object({
    /** The operation name the client sent (`deployManifest`), or the deployment step (`deploy`). */
    name: z.string(),
    account: z.string(),
    description: z.string(),
    /**
     * What cloudctl prepared before the dry run: the manifests as they would be applied (versioned
     * names, namespaces, labels and artifacts bound; Secret values blanked) and the artifacts bound.
     */
    prepared: z.object({
      manifests: z.array(z.record(z.string(), z.unknown())),
      boundArtifacts: z.array(z.unknown()),
    }),
    objects: z.array(plannedObjectRecordSchema),
    unknown: z.array(z.string()),
  })
  .describe('PlannedOperation');
export type PlannedOperation = z.infer<typeof plannedOperationSchema>;

export const planRecordSchema = z
  .object({
    id: z.string(),
    /** `operations`: POST /plans; `deployment`: a deployment file's, or an approval's next step. */
    source: z.enum(['operations', 'deployment']),
    createdBy: z.string(),
    createdAt: z.string(),
    expiresAt: z.string(),
    state: z.enum(['planned', 'applied', 'expired']),
    accounts: z.array(z.string()),
    operations: z.array(plannedOperationSchema),
    summary: z.object({
      create: z.int(),
      update: z.int(),
      unchanged: z.int(),
      delete: z.int(),
      /** Objects the API server's dry run refused. */
      refused: z.int(),
      /** Objects with at least one write the agent's identity may not do. */
      forbidden: z.int(),
    }),
    /** The task (or deployment) that applied the plan, once applied. */
    applied: z.object({ id: z.string(), resourceUri: z.string(), by: z.string(), at: z.string() }).optional(),
    resourceUri: z.string().describe('/plans/{id}'),
    applyUri: z.string().describe('/plans/{id}/apply'),
  })
  .describe('Plan');
export type PlanRecord = z.infer<typeof planRecordSchema>;
