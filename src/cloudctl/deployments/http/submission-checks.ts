// What a deployment file must pass before it is started or planned, checked whole before anything is
// stored: the file itself (every problem, located), what blue/green needs among a target's manifests,
// and that no run of the same application is under way on the same place. The submission route, the
// plan route and the plan's applier ask the same questions, so they answer alike.
import { formatIssue } from '../../../lib/config-issue.ts';
import { isRecord } from '../../../lib/is-record.ts';
import { HttpError } from '../../http/index.ts';
import type { DeploymentFile } from '../deployment-file/deployment-file-schema.ts';
import type { FailedDeployment, LoadedDeployment } from '../deployment-file/load-deployment-file.ts';
import { blueGreenServices } from '../deployment-file/traffic-management.ts';
import type { DeploymentStore } from '../run/index.ts';

/** The loaded file, or 400 naming every problem of it. */
export function checkedDeploymentFile(loaded: LoadedDeployment | FailedDeployment): LoadedDeployment {
  if (!loaded.ok)
    throw new HttpError(
      'REQUEST_INVALID',
      `file: the deployment file has ${loaded.issues.length} problem(s):\n${loaded.issues.map(formatIssue).join('\n')}`,
    );
  const file = loaded.deployment;
  for (const [name, target] of Object.entries(file.targets)) {
    const strategy = file.strategies[target.strategy];
    if (strategy === undefined || !('blueGreen' in strategy)) continue;
    const objects = loaded.manifests.filter((m) => m.targets.includes(name)).flatMap((m) => m.objects);
    const services = objects
      .filter((o) => o.kind === 'Service')
      .map((o) => (isRecord(o.metadata) ? o.metadata.name : undefined));
    const deployments = objects.filter((o) => o.kind === 'Deployment').length;
    const named = blueGreenServices(file, name);
    for (const service of [named?.activeService, named?.previewService]) {
      if (service !== undefined && !services.includes(service))
        throw new HttpError(
          'REQUEST_INVALID',
          `file: target ${name}: Service ${service} of its blue/green strategy is not among its manifests`,
        );
    }
    if (deployments !== 1)
      throw new HttpError(
        'REQUEST_INVALID',
        `file: target ${name}: a blue/green strategy switches one Deployment; its manifests have ${deployments}`,
      );
  }
  return loaded;
}

/** 409 while a run of the application is under way on an account and namespace the file deploys to. */
export async function requireNotRunning(
  store: Pick<DeploymentStore, 'unfinished'>,
  file: DeploymentFile,
): Promise<void> {
  // Two runs of one application on the same place would scale each other's versions.
  const places = new Set(Object.values(file.targets).map((t) => `${t.account}/${t.namespace ?? ''}`));
  const running = (await store.unfinished()).find(
    (d) =>
      d.application === file.application &&
      d.progress.targets.some((t) => places.has(`${t.account}/${t.namespace ?? ''}`)),
  );
  if (running !== undefined)
    throw new HttpError(
      'CONFLICT',
      `deployment ${running.id} of ${file.application} still runs on the same account and namespace; wait for it, or reject its pause`,
    );
}
