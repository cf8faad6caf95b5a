// A task's result objects (GET /task/{id}'s `resultObjects`), as clouddriver's Kubernetes operations
// write them and Orca reads them: after a deploy, delete or patch, Orca's PromoteManifestKatoOutputsTask
// takes `manifestNamesByNamespace`, `manifests`, `boundArtifacts` and `createdArtifacts` (the last also
// as its `artifacts` output); after a run job, MonitorKatoTask takes `deployedNamesByLocation` as
// `deploy.jobs`; a failed task carries one `type: EXCEPTION` object, which MonitorKatoTask reports.
// Converters build them (resultObject) and the compiler holds them to this schema; the task view
// documents it. Scale, resize, rollouts, enable and disable report none, as there.
import { z } from 'zod';
import { OPERATIONS } from '../../../contract/index.ts';
import { artifactSchema } from '../../artifacts/index.ts';

const namesByNamespace = z.record(z.string(), z.array(z.string()));

export const taskResultObjectSchema = z
  .object({
    manifestNamesByNamespace: namesByNamespace
      .optional()
      .describe(
        'deploy, delete, patch, runJob, cleanupArtifacts: "<kind> <name>" by namespace of what was acted on',
      ),
    manifests: z
      .array(z.record(z.string(), z.unknown()))
      .optional()
      .describe('deploy: the manifests as applied; patch: the object as patched (Secret values blanked)'),
    createdArtifacts: z
      .array(artifactSchema)
      .optional()
      .describe('deploy: an orchestrator/<kind> artifact for each manifest, versioned where it was'),
    boundArtifacts: z
      .array(artifactSchema)
      .optional()
      .describe('deploy, patch: the artifacts that replaced something in the manifests'),
    deployedNamesByLocation: namesByNamespace
      .optional()
      .describe('runJob: the job, "job <name>" by namespace'),
    jobOutcome: z.enum(['Complete', 'Failed']).optional().describe('runJob: how the job ended'),
    pods: OPERATIONS.runJob.result.shape.pods.optional().describe("runJob: the job's pods, with their logs"),
    type: z.literal('EXCEPTION').optional().describe('a failed task: its one exception object'),
    operation: z.string().optional().describe('EXCEPTION: the operation that failed'),
    message: z.string().optional().describe('EXCEPTION: why'),
    cause: z.string().optional().describe('EXCEPTION: why, as older clients read it'),
    retryable: z.boolean().optional().describe('EXCEPTION: whether resuming the task may mend it'),
  })
  .describe('TaskResultObject');
export type TaskResultObject = z.infer<typeof taskResultObjectSchema>;
