// runJob: create a Job and wait for it to finish (the agent's `runJob`). `account` or the legacy
// `credentials` names the account; a non-empty `namespace` overrides the manifest's.
import { z } from 'zod';
import type { OperationPayload } from '../../../contract/index.ts';
import { defineConverter, PayloadError } from './converter.ts';

export const runJob = defineConverter({
  name: 'runJob',
  phase: 'RUN_ORCHESTRATOR_JOB',
  payload: z
    .looseObject({
      account: z.string().min(1).optional(),
      credentials: z.string().min(1).optional(),
      application: z.string().optional(),
      namespace: z.string().default(''),
      manifest: z.looseObject({
        apiVersion: z.literal('batch/v1'),
        kind: z.literal('Job'),
        metadata: z.looseObject({ namespace: z.string().optional() }),
      }),
    })
    .refine((p) => p.account !== undefined || p.credentials !== undefined, {
      message: 'required: the account to run the job in',
      path: ['account'],
    }),
  describe: (p) => `Running a job in account ${p.account ?? p.credentials}`,
  toAgent: async (payload) => {
    const account = payload.account ?? payload.credentials ?? '';
    const namespace = payload.namespace !== '' ? payload.namespace : payload.manifest.metadata.namespace;
    if (namespace === undefined || namespace === '') {
      throw new PayloadError('namespace', 'required: give namespace or manifest.metadata.namespace');
    }
    return [
      {
        account,
        type: 'runJob',
        payload: {
          manifest: { ...payload.manifest, metadata: { ...payload.manifest.metadata, namespace } },
        } satisfies OperationPayload<'runJob'>,
      },
    ];
  },
  resultObject: (_payload, _step, result) => {
    const job = 'pods' in result ? result : undefined;
    const namespace = job?.namespace ?? '';
    return {
      manifestNamesByNamespace: { [namespace]: [`job ${job?.name ?? ''}`] },
      deployedNamesByLocation: { [namespace]: [`job ${job?.name ?? ''}`] },
      jobOutcome: job?.outcome,
      pods: job?.pods,
      manifests: [],
      createdArtifacts: [],
      boundArtifacts: [],
    };
  },
});
