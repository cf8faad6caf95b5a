// What the deployment end-to-end tests (analysis, traffic management) read of a deployment: its
// record through GET /deployments/{id} (targets with their workloads and steps, and the log), polled
// until a condition holds, and the replicas a ReplicaSet is scaled to in the cluster.
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { ApiClient as ClusterClient } from '../../cluster/index.ts';
import type { ApiClient } from '../http-client.ts';

export const deploymentRecordSchema = z.object({
  id: z.string(),
  status: z.string(),
  targets: z.array(
    z.object({
      status: z.string(),
      message: z.string().optional(),
      workloads: z
        .array(
          z.object({
            replicaSet: z.string(),
            previous: z.array(z.object({ name: z.string() })),
          }),
        )
        .optional(),
      steps: z.array(
        z.object({ key: z.string(), kind: z.string(), status: z.string(), message: z.string().optional() }),
      ),
    }),
  ),
  log: z.array(z.object({ message: z.string() })),
});
export type DeploymentRecord = z.infer<typeof deploymentRecordSchema>;

/** The deployment's record once `done` holds; throws with the last record after `timeoutMs`. */
export async function untilDeployment(
  api: ApiClient,
  id: string,
  what: string,
  done: (v: DeploymentRecord) => boolean,
  timeoutMs = 60_000,
): Promise<DeploymentRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await api.get(`/deployments/${id}`);
    const current = answer.status === 200 ? deploymentRecordSchema.parse(answer.body) : undefined;
    if (current !== undefined && done(current)) return current;
    if (Date.now() > deadline)
      throw new Error(`deployment ${id}: ${what} not reached:\n${JSON.stringify(current, null, 2)}`);
    await sleep(200);
  }
}

/** The first target's analysis step. */
export function analysisOf(v: DeploymentRecord) {
  const step = v.targets[0]?.steps.find((s) => s.kind === 'analysis');
  if (step === undefined) throw new Error(`no analysis step in ${JSON.stringify(v.targets[0]?.steps)}`);
  return step;
}

export async function replicasOf(cluster: ClusterClient, namespace: string, name: string): Promise<number> {
  const rs = await cluster.request('GET', `/apis/apps/v1/namespaces/${namespace}/replicasets/${name}`);
  return z.object({ spec: z.object({ replicas: z.int() }) }).parse(rs.json).spec.replicas;
}
