// GET /applications/{application}/orchestrator/pods/{account}/{namespace}/{podName}/{fileName}: the
// result properties one pod published, which Orca reads from the pod that succeeded when a Job's own
// `.../jobs/.../{fileName}` gave none. Despite its name, `fileName` is no file in the pod: clouddriver
// reads the log of the pod's container of that name and parses it as a Job's properties (its
// KubernetesJobProvider.getFileContentsFromPod), so Run Job stages publish through their log, and so
// do we, by the same rules (read-model's jobProperties). Nothing is executed in the pod. Both reads go
// to the cluster through the account's agent (the store holds no logs): first the pod, so that a
// missing pod or container is a 404 that names it, then the container's log.
import { z } from 'zod';
import { isRecord } from '../../lib/is-record.ts';
import type { AccountGuard } from '../accounts/index.ts';
import { defineRoute, errorBodySchema, HttpError, type Route } from '../http/index.ts';
import { type AgentOperations, askAgent } from '../operations/index.ts';
import { jobProperties } from '../read-model/index.ts';
import { liveObject } from './live-reads.ts';

export interface PodFileRouteDeps {
  guard: Pick<AccountGuard, 'require'>;
  operations: AgentOperations;
}

const podFilePath = z.object({
  application: z.string().min(1),
  account: z.string().min(1),
  namespace: z.string().min(1),
  podName: z.string().min(1),
  fileName: z.string().min(1).describe('the container whose log publishes the properties'),
});

/** The names of the pod's containers, init containers included (a Job's step may run in one). */
function containerNames(pod: Record<string, unknown>): string[] {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  return [spec.containers, spec.initContainers]
    .flatMap((list) => (Array.isArray(list) ? list : []))
    .map((c) => (isRecord(c) && typeof c.name === 'string' ? c.name : undefined))
    .filter((name): name is string => name !== undefined);
}

export function podFileRoutes(deps: PodFileRouteDeps): Route[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/applications/:application/orchestrator/pods/:account/:namespace/:podName/:fileName',
      summary:
        "A pod's result properties: SPINNAKER_PROPERTY_ and SPINNAKER_CONFIG_JSON lines of its container's log",
      tag: 'pods',
      access: 'user',
      schema: {
        params: podFilePath,
        response: {
          200: z.record(z.string(), z.unknown()).describe('the properties by name; empty when none'),
          502: errorBodySchema.describe(
            "The agent could not read the log; the message has the cluster's error",
          ),
          503: errorBodySchema.describe('No connected agent serves the account'),
        },
      },
      handler: async ({ params, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        const { account, namespace, podName, fileName } = params;
        const pod = await liveObject(deps.operations, account, {
          apiVersion: 'v1',
          kind: 'Pod',
          namespace,
          name: podName,
        });
        if (pod === undefined)
          throw new HttpError('NOT_FOUND', `no pod ${podName} in ${account}/${namespace}`);
        if (!containerNames(pod).includes(fileName))
          throw new HttpError('NOT_FOUND', `pod ${podName} has no container ${fileName}`);
        const { log } = await askAgent(
          deps.operations,
          {
            account,
            type: 'logs',
            // The contract's default limit (the log's first MiB), as the Job's own route reads it.
            payload: { namespace, pod: podName, container: fileName },
          },
          `read the log of ${fileName} in pod ${podName}`,
        );
        return jobProperties(log);
      },
    }),
  ];
}
