// A deployment as the API shows it: each target with its state, workloads and steps, and the log.
// What only the runner needs (operation ids, gate ids, a planned step's guard) stays out; a gate's
// plan shows as its id and path, for clients to GET (the plans feature checks who may).
import { z } from 'zod';
import { type PreviewRecord, previewRecordSchema } from '../../previews/index.ts';
import {
  DEPLOYMENT_STATUSES,
  STEP_KINDS,
  STEP_STATUSES,
  type StoredDeployment,
  TARGET_STATUSES,
} from '../run/index.ts';

const stepViewSchema = z.object({
  key: z.string(),
  phase: z.enum(['beforeDeployment', 'strategy', 'afterDeployment']),
  kind: z.enum(STEP_KINDS),
  label: z.string(),
  group: z.string().optional(),
  status: z.enum(STEP_STATUSES),
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  until: z.string().optional().describe('end of a timed pause, or the deadline of an approval or a callback'),
  message: z.string().optional(),
  mdMessage: z.string().optional().describe("the webhook job's message from its callback"),
  planId: z
    .string()
    .optional()
    .describe('of an approval or a webhook awaiting its callback: the plan of the next step that writes'),
  planUri: z.string().optional().describe('/plans/{planId}: the plan, its diff against the live objects'),
  plannedStep: z.string().optional().describe('the key of the step the plan is of'),
  planExpiresAt: z
    .string()
    .optional()
    .describe('when the plan expires (an approval waiting then gets a new one)'),
});

const workloadViewSchema = z.object({
  name: z.string(),
  namespace: z.string(),
  replicaSet: z.string(),
  desired: z.int(),
  previous: z.array(z.object({ name: z.string(), replicas: z.int() })),
});

const targetViewSchema = z.object({
  name: z.string(),
  account: z.string(),
  namespace: z.string().optional(),
  strategy: z.enum(['canary', 'blueGreen']),
  status: z.enum(TARGET_STATUSES),
  message: z.string().optional(),
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  workloads: z.array(workloadViewSchema).optional(),
  steps: z.array(stepViewSchema),
});

export const deploymentSummarySchema = z
  .object({
    id: z.string(),
    application: z.string(),
    status: z.enum(DEPLOYMENT_STATUSES),
    createdBy: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    targets: z.array(z.object({ name: z.string(), account: z.string(), status: z.enum(TARGET_STATUSES) })),
  })
  .describe('DeploymentSummary');

export const deploymentViewSchema = z
  .object({
    id: z.string(),
    application: z.string(),
    status: z.enum(DEPLOYMENT_STATUSES),
    createdBy: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    targets: z.array(targetViewSchema),
    log: z.array(z.object({ at: z.string(), target: z.string().optional(), message: z.string() })),
    previews: z
      .array(previewRecordSchema)
      .optional()
      .describe('on GET /deployments/{id}: the preview URLs its exposeServices steps opened'),
  })
  .describe('Deployment');

export type DeploymentView = z.infer<typeof deploymentViewSchema>;

export function deploymentSummary(d: StoredDeployment): z.infer<typeof deploymentSummarySchema> {
  return {
    id: d.id,
    application: d.application,
    status: d.status,
    createdBy: d.createdBy,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
    targets: d.progress.targets.map((t) => ({ name: t.name, account: t.account, status: t.status })),
  };
}

/** The deployment as the API shows it; `previews` where the answer lists them (GET /deployments/{id}). */
export function deploymentView(d: StoredDeployment, previews?: PreviewRecord[]): DeploymentView {
  return {
    ...deploymentSummary(d),
    targets: d.progress.targets.map((t) => ({
      name: t.name,
      account: t.account,
      namespace: t.namespace,
      strategy: t.strategy,
      status: t.status,
      message: t.message,
      startedAt: t.startedAt,
      finishedAt: t.finishedAt,
      workloads: t.workloads?.map((w) => ({
        name: w.name,
        namespace: w.namespace,
        replicaSet: w.replicaSet,
        desired: w.desired,
        previous: w.previous.map((p) => ({ name: p.name, replicas: p.replicas })),
      })),
      steps: t.steps.map((s) => ({
        key: s.key,
        phase: s.phase,
        kind: s.kind,
        label: s.label,
        group: s.group,
        status: s.status,
        startedAt: s.startedAt,
        finishedAt: s.finishedAt,
        until: s.until,
        message: s.message,
        mdMessage: s.mdMessage,
        ...(s.plan === undefined
          ? {}
          : {
              planId: s.plan.id,
              planUri: `/plans/${encodeURIComponent(s.plan.id)}`,
              plannedStep: s.plan.stepKey,
              planExpiresAt: s.plan.expiresAt,
            }),
      })),
    })),
    log: d.progress.log,
    ...(previews === undefined ? {} : { previews }),
  };
}
