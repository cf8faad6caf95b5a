// The deployment service's side of plans, plugged into cloudctl's plans feature: the port the runner
// plans with (run/deployment-planner.ts) backed by the Planner, and the applier POST /plans/{id}/apply
// hands a plan of source `deployment` to once the plans feature's guards passed (not applied before,
// not expired, no planned object moved). A file's plan starts the deployment it was made for, each
// first deploy held to the plan; a gate's plan is applied by deciding the gate, not here.
import { HttpError } from '../http/index.ts';
import { type PlanApplier, type Planner, stepExpectations } from '../plans/index.ts';
import { parseDeploymentFile } from './deployment-file/load-deployment-file.ts';
import { checkedDeploymentFile, requireNotRunning } from './http/submission-checks.ts';
import {
  type DeploymentPlanner,
  type DeploymentRunner,
  type DeploymentStore,
  planSubjectSchema,
} from './run/index.ts';

/**
 * The port over the Planner. What a step cannot know goes in its description (the plans feature
 * records what the agents' dry runs cannot tell; a step's own caveats have no field there yet).
 */
export function deploymentPlanner(
  planner: Pick<Planner, 'plan' | 'markApplied'>,
  externalUrl: () => string,
): DeploymentPlanner {
  return {
    plan: async (request) => {
      const caveats =
        request.unknown.length === 0 ? '' : `; not known before it runs: ${request.unknown.join('; ')}`;
      const record = await planner.plan({
        source: 'deployment',
        user: request.user,
        steps: request.calls.map((planned, i) => ({
          account: planned.account,
          name: planned.name,
          description: i === 0 ? `${planned.description}${caveats}` : planned.description,
          ...planned.call,
          // What applying means travels with the plan, on its first step (read back by the applier).
          ...(i === 0 ? { input: request.subject } : {}),
        })),
        ...(request.expireAfterMs === undefined ? {} : { expireAfterMs: request.expireAfterMs }),
      });
      return { record, expect: stepExpectations(record.operations) };
    },
    uri: (id) => `${externalUrl()}/plans/${encodeURIComponent(id)}`,
    applied: (planId, deploymentId, by) =>
      planner.markApplied(planId, { id: deploymentId, resourceUri: `/deployments/${deploymentId}` }, by),
  };
}

export interface DeploymentApplierDeps {
  runner: Pick<DeploymentRunner, 'submit' | 'analysisProviders'>;
  store: Pick<DeploymentStore, 'unfinished'>;
}

/** Starts the deployment a file's plan was made for; refuses a gate's plan, which its gate applies. */
export function deploymentApplier(deps: DeploymentApplierDeps): PlanApplier {
  return async ({ record, steps, by }) => {
    const subject = planSubjectSchema.safeParse(steps[0]?.input);
    if (!subject.success)
      throw new HttpError('CONFLICT', `plan ${record.id} does not say what deployment it is of; plan again`);
    if (subject.data.kind === 'gate') {
      const { deploymentId, stepKey } = subject.data;
      throw new HttpError(
        'CONFLICT',
        `plan ${record.id} is what deployment ${deploymentId} does after its gate ${stepKey}: approving that pause (POST /deployments/${deploymentId}/approve), or the webhook job's callback, applies it`,
      );
    }
    const { deploymentId, text, fileName, targets } = subject.data;
    const loaded = checkedDeploymentFile(
      await parseDeploymentFile(text, {
        file: fileName,
        baseDir: undefined,
        analysisProviders: deps.runner.analysisProviders,
      }),
    );
    await requireNotRunning(deps.store, loaded.deployment);
    const expect = stepExpectations(record.operations);
    const guards = Object.fromEntries(
      targets.map((t, i) => [t.name, { planId: record.id, digest: t.digest, expect: [expect[i] ?? []] }]),
    );
    const started = await deps.runner.submit({ loaded, text, fileName, user: by, id: deploymentId, guards });
    return { id: started.id, resourceUri: `/deployments/${started.id}` };
  };
}
