// `runJob`: create a Job, wait until it completes or fails (or the operation's deadline), and return
// its outcome with each of its pods' phase and logs. A pod whose logs cannot be read gets the reason
// instead of failing the whole result. Its plan dry-runs the Job's create; the outcome stays unknown.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ParsedPayload } from '../../../contract/index.ts';
import type { KubeRequest } from '../../../kube/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import { parseManifest } from '../apply/manifest.ts';
import { OperationError, toOperationError } from '../operation-error.ts';
import type { Handler } from '../operation-handler.ts';
import { dryRun, dryRunRequest, type Planner, readLive } from '../plan/index.ts';

const record = (v: unknown) => (isRecord(v) ? v : {});

function finished(job: Record<string, unknown>): 'Complete' | 'Failed' | undefined {
  const conditions = Array.isArray(record(job.status).conditions)
    ? (record(job.status).conditions as unknown[])
    : [];
  for (const c of conditions.filter(isRecord)) {
    if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') return c.type;
  }
  return undefined;
}

/** The Job's create, once its manifest is checked: a namespace is required, a name or generateName. */
function jobCreation(
  payload: ParsedPayload<'runJob'>,
  signal: AbortSignal,
): { namespace: string; request: KubeRequest } {
  const metadata = record(payload.manifest.metadata);
  const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : undefined;
  if (namespace === undefined)
    throw new OperationError(
      'INVALID_PAYLOAD',
      'manifest.metadata.namespace: required for a Job',
      'manifest.metadata.namespace',
    );
  // generateName is allowed (a job run per invocation); parseManifest wants a name, so check a stand-in.
  parseManifest(
    { ...payload.manifest, metadata: { ...metadata, name: metadata.name ?? metadata.generateName ?? '' } },
    0,
  );
  return {
    namespace,
    request: {
      verb: 'create',
      method: 'POST',
      path: `/apis/batch/v1/namespaces/${namespace}/jobs`,
      query: { fieldManager: 'orch-agent' },
      body: payload.manifest,
      signal,
    },
  };
}

export const runJobHandler: Handler<'runJob'> = {
  run: async (payload, context) => {
    const { http } = context.cluster;
    const { namespace, request } = jobCreation(payload, context.signal);
    const created = await http.request(request);
    const name = String(record(record(created.body).metadata).name);
    const jobPath = `/apis/batch/v1/namespaces/${namespace}/jobs/${name}`;
    let job = record(created.body);
    while (finished(job) === undefined) {
      await sleep(500, undefined, { signal: context.signal });
      job = record(
        (await http.request({ verb: 'get', method: 'GET', path: jobPath, signal: context.signal })).body,
      );
    }
    const pods = await http.request({
      verb: 'list',
      method: 'GET',
      path: `/api/v1/namespaces/${namespace}/pods`,
      query: { labelSelector: `batch.kubernetes.io/job-name=${name}` },
      signal: context.signal,
    });
    const items = Array.isArray(record(pods.body).items)
      ? (record(pods.body).items as unknown[]).filter(isRecord)
      : [];
    const podResults = await Promise.all(
      items.map(async (pod) => {
        const podName = String(record(pod.metadata).name);
        const containers = Array.isArray(record(pod.spec).containers)
          ? (record(pod.spec).containers as unknown[]).filter(isRecord)
          : [];
        const logs: Record<string, string> = {};
        const logErrors: Record<string, string> = {};
        for (const container of containers.map((c) => String(c.name))) {
          try {
            const answer = await http.request({
              verb: 'get',
              method: 'GET',
              path: `/api/v1/namespaces/${namespace}/pods/${podName}/log`,
              query: { container, limitBytes: payload.logLimitBytes || undefined },
              accept: 'text/plain, */*',
              signal: context.signal,
            });
            logs[container] = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
          } catch (error) {
            logErrors[container] = toOperationError(error).message;
          }
        }
        return {
          name: podName,
          ...(typeof record(pod.status).phase === 'string'
            ? { phase: String(record(pod.status).phase) }
            : {}),
          logs,
          ...(Object.keys(logErrors).length > 0 ? { logErrors } : {}),
        };
      }),
    );
    const status = isRecord(job.status) ? job.status : undefined;
    return { namespace, name, outcome: finished(job), status, pods: podResults };
  },
};

export const runJobPlanner: Planner<'runJob'> = async (payload, { cluster, signal }) => {
  const { namespace, request } = jobCreation(payload, signal);
  const metadata = record(payload.manifest.metadata);
  const given = typeof metadata.name === 'string' ? metadata.name : undefined;
  const resource = await cluster.resources.resolve('batch/v1', 'Job', signal);
  // A Job of that name already there makes the create fail (AlreadyExists), as the dry run says.
  const live =
    given === undefined ? null : await readLive(cluster, resource, { namespace, name: given }, signal);
  const { planned, verdict } = await dryRun(
    async () => (await cluster.http.request(dryRunRequest(request))).body,
  );
  const name = given ?? String(record(planned?.metadata).name ?? metadata.generateName);
  const at = { group: 'batch', namespace };
  return {
    objects: [
      {
        ref: { apiVersion: 'batch/v1', kind: 'Job', namespace, name },
        action: 'create',
        live,
        planned,
        dryRun: verdict,
        // The create, then what the run reads to wait for the Job and collect its pods' logs.
        access: [
          { verb: 'create', resource: 'jobs', ...at },
          { verb: 'get', resource: 'jobs', ...at, ...(given === undefined ? {} : { name: given }) },
          { verb: 'list', group: '', resource: 'pods', namespace },
          { verb: 'get', group: '', resource: 'pods', subresource: 'log', namespace },
        ],
        unknown: [
          "the Job's outcome (Complete or Failed), its pods and their logs: known only once it runs",
          ...(given === undefined
            ? ["its name: generated when it is created (the dry run's is a sample)"]
            : []),
        ],
        given: payload.manifest,
      },
    ],
    unknown: [],
  };
};
