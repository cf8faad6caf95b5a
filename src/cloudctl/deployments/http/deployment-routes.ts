// The deployment service over HTTP: submit a deployment file (manifests inline), follow it, approve or
// reject the pause it waits at, roll it back; and the callback webhook jobs post their verdict to.
// A submission is checked whole before anything is stored: the file (every problem, located), the
// accounts (WRITE on each target's), and what blue/green needs among the manifests. A file can also
// be planned first (POST /deployments/plans): the same checks, READ on the accounts, nothing started.
import { z } from 'zod';
import type { AccountGuard } from '../../accounts/index.ts';
import { AGENT_ANSWERS, defineRoute, errorAnswers, HttpError, Reply, type Route } from '../../http/index.ts';
import { planRecordSchema } from '../../plans/index.ts';
import type { PreviewLinks } from '../../previews/index.ts';
import { parseDeploymentFile } from '../deployment-file/load-deployment-file.ts';
import { callbackGateId, type DeploymentRunner, type DeploymentStore, StepFailure } from '../run/index.ts';
import {
  decideApproval,
  readableDeployment,
  readableDeployments,
  rollBackDeployment,
} from './deployment-decisions.ts';
import {
  deploymentSummary,
  deploymentSummarySchema,
  deploymentView,
  deploymentViewSchema,
} from './deployment-view.ts';
import { checkedDeploymentFile, requireNotRunning } from './submission-checks.ts';

const TAG = 'deployments';

/** The largest deployment file taken over HTTP (manifests inline). */
const MAX_FILE_CHARS = 4 << 20;

export interface DeploymentRoutesDeps {
  runner: DeploymentRunner;
  store: DeploymentStore;
  guard: AccountGuard;
  now: () => Date;
  /** Lists the deployment's preview URLs on its record. */
  previews: Pick<PreviewLinks, 'ofDeployment'>;
}

const idParams = z.object({ id: z.string().min(1).max(100) });

const submissionSchema = z.object({
  file: z.string().min(1).max(MAX_FILE_CHARS).describe('the deployment file (YAML), its manifests inline'),
  fileName: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe('how errors name the file; default "request body"'),
});

const decisionSchema = z.object({
  target: z.string().min(1).optional().describe('the target whose pause to decide, when several wait'),
  message: z.string().max(10_000).optional(),
});

const callbackSchema = z.object({
  success: z.boolean().describe('true lets the step proceed; false fails it'),
  mdMessage: z.string().max(100_000).optional().describe('shown in the deployment and its log'),
});

const callbackAnswerSchema = z
  .object({ accepted: z.boolean(), repeated: z.boolean() })
  .describe('CallbackAnswer');

function decide(deps: DeploymentRoutesDeps, verdict: boolean): Route {
  return defineRoute({
    method: 'POST',
    url: `/deployments/:id/${verdict ? 'approve' : 'reject'}`,
    summary: verdict
      ? 'Approves the manual pause a deployment waits at'
      : 'Rejects the manual pause a deployment waits at: the target fails, rollback is left to the user',
    tag: TAG,
    access: 'user',
    schema: {
      params: idParams,
      body: decisionSchema,
      response: { 200: deploymentViewSchema, ...errorAnswers('CONFLICT') },
    },
    handler: async ({ params, body, user }) =>
      deploymentView(
        await decideApproval(deps, user, params.id, { verdict, target: body.target, message: body.message }),
      ),
  });
}

export function deploymentRoutes(deps: DeploymentRoutesDeps): Route[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/deployments',
      summary: 'Starts a deployment from a deployment file whose manifests are inline',
      tag: TAG,
      access: 'user',
      schema: {
        body: submissionSchema,
        response: { 202: deploymentViewSchema, ...errorAnswers('CONFLICT') },
      },
      handler: async ({ body, user }) => {
        const fileName = body.fileName ?? 'request body';
        const loaded = checkedDeploymentFile(
          await parseDeploymentFile(body.file, {
            file: fileName,
            baseDir: undefined,
            analysisProviders: deps.runner.analysisProviders,
          }),
        );
        const file = loaded.deployment;
        for (const target of Object.values(file.targets))
          await deps.guard.require(user, target.account, 'WRITE');
        await requireNotRunning(deps.store, file);
        const deployment = await deps.runner.submit({ loaded, text: body.file, fileName, user: user.name });
        return new Reply(202, deploymentView(deployment));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/deployments/plans',
      summary:
        "Plans a deployment file without starting it: each target's first deploy, its manifests as they would be applied, dry-run and diffed against the live objects; POST /plans/{id}/apply starts the deployment, guarded",
      tag: TAG,
      access: 'user',
      schema: {
        body: submissionSchema,
        response: { 201: planRecordSchema, ...AGENT_ANSWERS },
      },
      handler: async ({ body, user }) => {
        const fileName = body.fileName ?? 'request body';
        const loaded = checkedDeploymentFile(
          await parseDeploymentFile(body.file, {
            file: fileName,
            baseDir: undefined,
            analysisProviders: deps.runner.analysisProviders,
          }),
        );
        // As POST /plans: READ plans; applying the plan needs WRITE on every account (POST /plans/{id}/apply).
        for (const target of Object.values(loaded.deployment.targets))
          await deps.guard.require(user, target.account, 'READ');
        try {
          const plan = await deps.runner.planFile({ loaded, text: body.file, fileName, user: user.name });
          return new Reply(201, plan.record);
        } catch (error) {
          // A failed look at the cluster (the agent away or failing) is the agent's answer, not ours.
          if (error instanceof StepFailure) throw new HttpError('AGENT_FAILED', error.message);
          throw error;
        }
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/deployments',
      summary: 'Lists the newest deployments the user may read',
      tag: TAG,
      access: 'user',
      schema: {
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(500).default(50) }),
        response: { 200: z.array(deploymentSummarySchema) },
      },
      handler: async ({ query, user }) =>
        (await readableDeployments(deps, user, query.limit)).map(deploymentSummary),
    }),
    defineRoute({
      method: 'GET',
      url: '/deployments/:id',
      summary: "A deployment: each target's state, workloads and steps, and its log",
      tag: TAG,
      access: 'user',
      schema: { params: idParams, response: { 200: deploymentViewSchema } },
      handler: async ({ params, user }) => {
        const deployment = await readableDeployment(deps, user, params.id);
        return deploymentView(deployment, await deps.previews.ofDeployment(deployment.id));
      },
    }),
    decide(deps, true),
    decide(deps, false),
    defineRoute({
      method: 'POST',
      url: '/deployments/:id/rollback',
      summary: 'Rolls back the targets of a finished deployment: previous versions restored, new ones at 0',
      tag: TAG,
      access: 'user',
      schema: { params: idParams, response: { 202: deploymentViewSchema, ...errorAnswers('CONFLICT') } },
      handler: async ({ params, user }) =>
        new Reply(202, deploymentView(await rollBackDeployment(deps, user, params.id))),
    }),
    defineRoute({
      method: 'POST',
      url: '/deployments/callbacks/:callbackId/callback',
      summary: "A webhook job's verdict, posted to {{vendor.callbackUri}}/callback; the first verdict wins",
      tag: TAG,
      access: 'user',
      schema: {
        params: z.object({ callbackId: z.string().min(1).max(200) }),
        body: callbackSchema,
        response: { 200: callbackAnswerSchema, ...errorAnswers('CONFLICT') },
      },
      handler: async ({ params, body, user }) => {
        const gateId = callbackGateId(params.callbackId);
        const gate = await deps.store.gate(gateId);
        if (gate === undefined || gate.kind !== 'callback')
          throw new HttpError('NOT_FOUND', 'no webhook run has this callback URI');
        const deployment = await deps.store.get(gate.deploymentId);
        const target = deployment?.progress.targets.find((t) => t.steps.some((s) => s.key === gate.stepKey));
        const step = target?.steps.find((s) => s.key === gate.stepKey);
        if (deployment === undefined || target === undefined || step === undefined)
          throw new HttpError('NOT_FOUND', 'no webhook run has this callback URI');
        await deps.guard.require(user, target.account, 'WRITE');
        if (gate.verdict === null && (step.status !== 'RUNNING' || step.gateId !== gateId))
          throw new HttpError(
            'CONFLICT',
            `the webhook run no longer waits for a callback (step ${step.status.toLowerCase()})`,
          );
        const decision = await deps.store.decide(
          gateId,
          { verdict: body.success, message: body.mdMessage ?? null, by: user.name },
          deps.now(),
        );
        if (decision.outcome === 'unknown')
          throw new HttpError('NOT_FOUND', 'no webhook run has this callback URI');
        if (decision.outcome === 'conflict')
          throw new HttpError(
            'CONFLICT',
            `a callback already answered success: ${String(decision.gate.verdict)}; the first verdict stands`,
          );
        deps.runner.wake(gateId);
        return { accepted: true, repeated: decision.outcome === 'repeated' };
      },
    }),
  ];
}
