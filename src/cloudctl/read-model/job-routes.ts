// GET /applications/{application}/jobs/{account}/{location}/{id}: a Job's status from its index row
// (the Job's status counts and its Complete or Failed condition); DELETE cancels it through the agent
// (a delete with background propagation, so its pods go too); GET .../{fileName} reads the result
// properties the Job published in the log of its container `fileName` (job-properties.ts), from its
// newest pod, through the agent. The id is "job <name>" or the name.
import { z } from 'zod';
import { defineRoute, errorBodySchema, HttpError, Reply, type Route } from '../http/index.ts';
import { askAgent } from '../operations/index.ts';
import { jobProperties } from './job-properties.ts';
import type { ObjectSummary } from './object-mapping.ts';
import { CLOUD_PROVIDER } from './records.ts';
import type { ReadRouteDeps } from './route-deps.ts';
import { fullName } from './views.ts';

const jobStatusSchema = z
  .object({
    id: z.string().describe('"job <name>"'),
    name: z.string(),
    account: z.string(),
    location: z.string().describe('the namespace'),
    provider: z.string(),
    jobState: z.enum(['Starting', 'Running', 'Failed', 'Succeeded', 'Unknown']),
    createdTime: z.number().nullable(),
    completedTime: z.number().nullable(),
    completionDetails: z
      .record(z.string(), z.string())
      .describe('active, succeeded and failed pod counts, as strings'),
  })
  .describe('JobStatus');

/** Complete → Succeeded, Failed → Failed (the Job's conditions); pods active → Running; else Starting. */
export function jobState(summary: ObjectSummary): z.infer<typeof jobStatusSchema>['jobState'] {
  if (summary.jobCondition === 'Complete') return 'Succeeded';
  if (summary.jobCondition === 'Failed') return 'Failed';
  if ((summary.active ?? 0) > 0) return 'Running';
  return 'Starting';
}

const jobPath = z.object({
  application: z.string().min(1),
  account: z.string().min(1).describe('the account that created the job'),
  location: z.string().min(1).describe('the namespace'),
  id: z.string().min(1).describe('"job <name>" or the name'),
});

export function jobRoutes(deps: ReadRouteDeps): Route[] {
  const findJob = async (params: z.infer<typeof jobPath>) => {
    const name = params.id.startsWith('job ') ? params.id.slice(4) : params.id;
    const job = await deps.model.find(params.account, params.location, 'job', name);
    if (job === undefined)
      throw new HttpError('NOT_FOUND', `no job ${name} in ${params.account}/${params.location}`);
    return job;
  };
  return [
    defineRoute({
      method: 'GET',
      url: '/applications/:application/jobs/:account/:location/:id/:fileName',
      summary:
        "A Job's result properties: SPINNAKER_PROPERTY_ and SPINNAKER_CONFIG_JSON lines of a container's log",
      tag: 'jobs',
      access: 'user',
      schema: {
        params: jobPath.extend({
          fileName: z.string().min(1).describe('the container whose log publishes the properties'),
        }),
        response: {
          200: z.record(z.string(), z.unknown()).describe('the properties by name'),
          502: errorBodySchema.describe(
            "The agent could not read the log; the message has the cluster's error",
          ),
          503: errorBodySchema.describe('No connected agent serves the account'),
        },
      },
      handler: async ({ params, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        const job = await findJob(params);
        const pods = await deps.model.ownedBy(job, 'instance');
        const newest = pods.sort((a, b) => (b.createdTime ?? 0) - (a.createdTime ?? 0))[0];
        if (newest === undefined) throw new HttpError('NOT_FOUND', `job ${job.name} has no pod to read`);
        if (!(newest.summary.containers ?? []).includes(params.fileName)) {
          throw new HttpError(
            'NOT_FOUND',
            `pod ${newest.name} of job ${job.name} has no container ${params.fileName}`,
          );
        }
        const { log } = await askAgent(
          deps.operations,
          {
            account: job.account,
            type: 'logs',
            payload: { namespace: newest.namespace, pod: newest.name, container: params.fileName },
          },
          `read the log of ${params.fileName}`,
        );
        return jobProperties(log);
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/applications/:application/jobs/:account/:location/:id',
      summary: 'Cancels a Job: deletes it through the agent, its pods with it',
      tag: 'jobs',
      access: 'user',
      schema: {
        params: jobPath,
        response: {
          204: z.void().describe('Cancelled'),
          502: errorBodySchema.describe(
            "The agent could not delete the Job; the message has the cluster's error",
          ),
          503: errorBodySchema.describe('No connected agent serves the account'),
        },
      },
      handler: async ({ params, user }) => {
        await deps.guard.require(user, params.account, 'WRITE');
        const job = await findJob(params);
        await askAgent(
          deps.operations,
          {
            account: job.account,
            type: 'delete',
            payload: {
              apiVersion: `${job.group}/${job.version}`,
              kind: job.kind,
              namespace: job.namespace,
              name: job.name,
              propagationPolicy: 'Background',
            },
          },
          `delete job ${job.name}`,
        );
        return new Reply(204, null);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/applications/:application/jobs/:account/:location/:id',
      summary: "A Job's status: Starting, Running, Succeeded or Failed, with its pod counts",
      tag: 'jobs',
      access: 'user',
      schema: {
        params: jobPath,
        response: { 200: jobStatusSchema },
      },
      handler: async ({ params, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        const job = await findJob(params);
        const completed =
          job.summary.completionTime === undefined ? Number.NaN : Date.parse(job.summary.completionTime);
        return {
          id: fullName(job),
          name: job.name,
          account: job.account,
          location: job.namespace,
          provider: CLOUD_PROVIDER,
          jobState: jobState(job.summary),
          createdTime: job.createdTime,
          completedTime: Number.isFinite(completed) ? completed : null,
          completionDetails: {
            active: String(job.summary.active ?? 0),
            succeeded: String(job.summary.succeeded ?? 0),
            failed: String(job.summary.failed ?? 0),
          },
        };
      },
    }),
  ];
}
