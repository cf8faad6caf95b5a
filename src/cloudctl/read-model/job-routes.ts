// GET /applications/{application}/jobs/{account}/{location}/{id}: a Job's status from its index row
// (the Job's status counts and its Complete or Failed condition). The id is "job <name>" or the name.
import { z } from 'zod';
import { defineRoute, HttpError, type Route } from '../http/index.ts';
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

export function jobRoutes(deps: ReadRouteDeps): Route[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/applications/:application/jobs/:account/:location/:id',
      summary: "A Job's status: Starting, Running, Succeeded or Failed, with its pod counts",
      tag: 'jobs',
      access: 'user',
      schema: {
        params: z.object({
          application: z.string().min(1),
          account: z.string().min(1).describe('the account that created the job'),
          location: z.string().min(1).describe('the namespace'),
          id: z.string().min(1).describe('"job <name>" or the name'),
        }),
        response: { 200: jobStatusSchema },
      },
      handler: async ({ params, user }) => {
        await deps.guard.require(user, params.account, 'READ');
        const name = params.id.startsWith('job ') ? params.id.slice(4) : params.id;
        const job = await deps.model.find(params.account, params.location, 'job', name);
        if (job === undefined) {
          throw new HttpError('NOT_FOUND', `no job ${name} in ${params.account}/${params.location}`);
        }
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
