// How far a deployment got, as stored after every move: each target's state and steps, the workloads
// it rolled out (new and previous ReplicaSets, so a rollback knows what to restore), and a log. The
// runner reads it back after a restart and carries each target on from its step; nothing a wait needs
// lives only in memory.
import { z } from 'zod';
import { expectedVersionSchema } from '../../../contract/index.ts';
import { STEP_STATUSES, TARGET_STATUSES } from './deployment-state.ts';

export const STEP_KINDS = [
  'pause',
  'approval',
  'webhook',
  'analysis',
  'deploy',
  'setWeight',
  'promote',
  'switchTraffic',
  'removeOld',
  'exposeServices',
] as const;

export const stepStateSchema = z.object({
  /** Unique in the deployment: `<target>/<phase>[<index>]`, say `prod/beforeDeployment[1]`. */
  key: z.string(),
  phase: z.enum(['beforeDeployment', 'strategy', 'afterDeployment']),
  kind: z.enum(STEP_KINDS),
  /** What the step does, for people: `webhook smoke-tests`, `setWeight 25%`. */
  label: z.string(),
  /** Index into the file's list the step came from (its constraint list or the strategy's steps). */
  source: z.int().min(0).optional(),
  /** Steps with the same group run in parallel (`redirectTrafficAfter`, `shutDownOldVersionAfter`). */
  group: z.string().optional(),
  status: z.enum(STEP_STATUSES),
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  /** The end of a timed pause, or the deadline of an approval or a webhook's callback. */
  until: z.string().optional(),
  /** Agent operations the step sent, stored before sending so a restart awaits them instead. */
  operationIds: z.array(z.string()).default([]),
  /** A webhook's request was answered 2xx: a restart waits for the callback, it does not send again. */
  sentAt: z.string().optional(),
  /** Of an approval: the roles allowed to decide it (none: anyone who may change the account). */
  requiresRoles: z.array(z.string()).optional(),
  /** The approval or callback this step waits for (deployment_gates.id). */
  gateId: z.string().optional(),
  /** What happened: the reason of a failure, who approved, the webhook's answer. */
  message: z.string().optional(),
  /** The webhook job's own words (the callback's `mdMessage`). */
  mdMessage: z.string().optional(),
  /**
   * Of an approval or a webhook awaiting its callback: the plan of the next step that writes to the
   * cluster (`stepKey`), made when the gate opened (an approval's is made again when it expires).
   */
  plan: z.object({ id: z.string(), stepKey: z.string(), expiresAt: z.string() }).optional(),
  /**
   * Of a step a gate planned: what its writes are held to. `digest` covers the calls as planned (the
   * step refuses to send others); `expect[i]` are the versions the plan saw of the objects of its
   * i-th call, sent with it so the agent writes nothing if one moved.
   */
  guard: z
    .object({
      planId: z.string(),
      digest: z.string(),
      expect: z.array(z.array(expectedVersionSchema)),
    })
    .optional(),
});
export type StepState = z.infer<typeof stepStateSchema>;

export const workloadSchema = z.object({
  /** The Deployment's name in the manifests. */
  name: z.string(),
  namespace: z.string(),
  /** The ReplicaSet this run creates for it, and the pod template hash it is named by. */
  replicaSet: z.string(),
  version: z.string(),
  /** The replicas the manifest asks for: what 100% means. */
  desired: z.int().min(0),
  /** The versions live before the run, with the replicas each had: what a rollback restores. */
  previous: z.array(z.object({ name: z.string(), version: z.string(), replicas: z.int().min(0) })),
  /**
   * This version's place among the workload's versions (one past the highest before it), written as
   * Spinnaker's moniker sequence so every version shows in one cluster. Absent in runs stored before.
   */
  sequence: z.int().min(0).optional(),
});
export type Workload = z.infer<typeof workloadSchema>;

export const targetStateSchema = z.object({
  name: z.string(),
  account: z.string(),
  /** The namespace override of the target, if any. */
  namespace: z.string().optional(),
  strategy: z.enum(['canary', 'blueGreen']),
  status: z.enum(TARGET_STATUSES),
  message: z.string().optional(),
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  /** Known once the manifests are applied. */
  workloads: z.array(workloadSchema).optional(),
  /** Operations of a rollback in progress, stored before sending. */
  rollbackOperationIds: z.array(z.string()).default([]),
  steps: z.array(stepStateSchema),
});
export type TargetState = z.infer<typeof targetStateSchema>;

export const logEntrySchema = z.object({
  at: z.string(),
  target: z.string().optional(),
  message: z.string(),
});
export type LogEntry = z.infer<typeof logEntrySchema>;

export const progressSchema = z.object({
  targets: z.array(targetStateSchema),
  log: z.array(logEntrySchema),
});
export type DeploymentProgress = z.infer<typeof progressSchema>;
