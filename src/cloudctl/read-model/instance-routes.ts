// GET /instances/{account}/{region}/{id}: one pod as an Instance, from the index. Its console is the
// pod's container logs, which the cache does not hold: read through the account's agent (`logs`),
// one container after another. A container whose log cannot be read gets the reason as its output,
// as clouddriver answers (200, the error in the text), so one bad container does not hide the others.
// The id is Spinnaker's "pod <name>" or the pod's bare name. The instance also carries the pod's latest
// metrics from the store (`metrics`, the shape of GET /manifests' `metrics`): clouddriver's Instance has
// none and Deck reads them from the manifest, but a client reading the instance needs no second call.
import { z } from 'zod';
import { defineRoute, errorBodySchema, HttpError, type Route } from '../http/index.ts';
import { askAgent } from '../operations/index.ts';
import { containerMetricSchema, podContainerMetrics } from './pod-metrics.ts';
import { instanceSchema } from './records.ts';
import type { ReadRouteDeps } from './route-deps.ts';
import { instanceOf } from './views.ts';

const instancePath = z.object({
  account: z.string().min(1),
  region: z.string().min(1).describe('the namespace'),
  id: z.string().min(1).describe('"pod <name>" or the pod\'s name'),
});

const consoleSchema = z
  .object({
    output: z
      .array(z.object({ name: z.string().describe('the container'), output: z.string().describe('its log') }))
      .describe('one entry per container, in the order of the pod spec'),
  })
  .describe('ConsoleOutput');

const instanceDetailsSchema = instanceSchema
  .extend({
    metrics: z
      .array(containerMetricSchema)
      .describe(
        "the pod's latest metrics per container; empty unless its account sends metrics (`metrics: true`)",
      ),
  })
  .describe('InstanceDetails');

/** At most this much of each container's log, its end (the agent's limit is 16 MiB). */
const LOG_LIMIT_BYTES = 1 << 20;

export function instanceRoutes(deps: ReadRouteDeps): Route[] {
  const findPod = async (params: z.infer<typeof instancePath>) => {
    const name = params.id.startsWith('pod ') ? params.id.slice(4) : params.id;
    const pod = await deps.model.find(params.account, params.region, 'pod', name);
    if (pod === undefined) {
      throw new HttpError('NOT_FOUND', `no instance pod ${name} in ${params.account}/${params.region}`);
    }
    return pod;
  };
  /** The container's log, or why it cannot be read; without an agent the request fails (503). */
  const containerLog = async (
    pod: { account: string; namespace: string; name: string },
    container: string,
  ) => {
    try {
      const { log } = await askAgent(
        deps.operations,
        {
          account: pod.account,
          type: 'logs',
          payload: { namespace: pod.namespace, pod: pod.name, container, limitBytes: LOG_LIMIT_BYTES },
        },
        `read the logs of ${container}`,
      );
      return log;
    } catch (error) {
      if (error instanceof HttpError && error.code === 'AGENT_FAILED')
        return `Failed to retrieve the logs: ${error.message}`;
      throw error;
    }
  };
  return [
    defineRoute({
      method: 'GET',
      url: '/instances/:account/:region/:id',
      summary: 'One instance (pod): health from its phase and Ready condition, and its latest metrics',
      tag: 'instances',
      access: 'user',
      schema: { params: instancePath, response: { 200: instanceDetailsSchema } },
      handler: async ({ params, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        const pod = await findPod(params);
        return { ...instanceOf(pod), metrics: await podContainerMetrics(deps.cache, pod) };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/instances/:account/:region/:id/console',
      summary: "An instance's console output: each container's log, read through the agent",
      tag: 'instances',
      access: 'user',
      schema: {
        params: instancePath,
        querystring: z.object({
          cloudProvider: z.string().optional().describe('ignored: always orchestrator'),
          provider: z.string().optional().describe('ignored: always orchestrator'),
        }),
        response: {
          200: consoleSchema,
          503: errorBodySchema.describe('No connected agent serves the account'),
        },
      },
      handler: async ({ params, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        const pod = await findPod(params);
        const output: Array<{ name: string; output: string }> = [];
        for (const container of pod.summary.containers ?? []) {
          output.push({ name: container, output: await containerLog(pod, container) });
        }
        return { output };
      },
    }),
  ];
}
