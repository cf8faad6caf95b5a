// `cloudctl deploy -f FILE --plan`: the deployment file checked and inlined exactly as `deploy -f`
// sends it, posted to POST /deployments/plans, which plans each target's first deploy without starting
// anything; the plan printed as `cloudctl plan` prints one. Applying it (apply-plan ID) starts the
// deployment with those deploys guarded by what the plan saw.
import type { CliIo } from '../../../lib/cli-io.ts';
import { EXIT } from '../../../lib/command-line.ts';
import type { ApiClient } from '../client/index.ts';
import type { ParsedArgs } from '../command-line/index.ts';
import { showPlan } from './show-plan.ts';

export async function planDeployment(
  file: string,
  args: ParsedArgs,
  client: ApiClient,
  io: CliIo,
): Promise<number> {
  // Loaded when used, as `deploy` loads them: the deployment file's modules and the plans feature
  // (where the plan record's schema lives) are not for every command.
  const request = await (await import('../deploy-command.ts')).deploymentRequest(file, io);
  if (request === undefined) return EXIT.invalidConfig;
  const { requestPlan } = await import('./plan-request.ts');
  showPlan(await requestPlan(client, '/deployments/plans', request.body), args, io);
  return EXIT.ok;
}
