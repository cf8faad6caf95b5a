// exposeServices: opens a preview URL for each named Service of the target's namespace, valid for the
// step's `ttl` (previews feature: cloudctl forwards each request through the agent serving the
// account, via the API server's service proxy). The step succeeds once the links exist; a Service
// that is not there fails it, naming the Service and the namespace looked in, before any link is
// opened. Each URL reaches the Service's first port. Run again after a restart, the step finds the
// links it opened before (one per deployment, step and Service) rather than opening new ones.
import { isRecord } from '../../../../lib/is-record.ts';
import { durationMs } from '../../deployment-file/duration.ts';
import { namespaceOf } from '../versioned-manifests.ts';
import { record, type StepContext, StepFailure } from './step-context.ts';
import type { StepKind } from './step-kind.ts';

/**
 * Where the step looks for a Service: the namespace the file's own manifest of it goes to, else the
 * target's (its override, or where its workloads went), else `default`.
 */
function serviceNamespace(run: StepContext, service: string): string {
  const manifest = run.deps.manifests.find(
    (m) => m.kind === 'Service' && isRecord(m.metadata) && m.metadata.name === service,
  );
  if (manifest !== undefined) return namespaceOf(manifest, run.versionContext());
  return run.target.namespace ?? run.target.workloads?.[0]?.namespace ?? 'default';
}

/**
 * The Service's first port, as the proxy path takes it; a failure naming what is missing. Listed by
 * name rather than read: an absent Service is then an empty list, not the read's failure.
 */
async function firstPort(run: StepContext, namespace: string, service: string, rollback: boolean) {
  const { items } = await run.deps.read(run.target.account, 'list', {
    apiVersion: 'v1',
    kind: 'Service',
    namespace,
    fieldSelector: `metadata.name=${service}`,
  });
  const [object] = items;
  if (object === undefined)
    throw new StepFailure(
      `exposeServices: Service '${service}' does not exist in namespace ${namespace}`,
      rollback,
    );
  const ports = record(object.spec).ports;
  const first = Array.isArray(ports) ? record(ports[0]).port : undefined;
  if (typeof first !== 'number')
    throw new StepFailure(`exposeServices: Service ${namespace}/${service} has no port to reach`, rollback);
  return String(first);
}

export const exposeServicesStep: StepKind = async (step, run) => {
  const definition = run.definition(step);
  if (!('exposeServices' in definition)) throw new StepFailure('not an exposeServices step', false);
  const { services, ttl } = definition.exposeServices;
  const rollback = run.rollsBack(step);
  const found = [];
  for (const service of services) {
    const namespace = serviceNamespace(run, service);
    found.push({ service, namespace, port: await firstPort(run, namespace, service, rollback) });
  }
  const createdAt = new Date(Date.parse(step.startedAt ?? run.deps.now().toISOString()));
  const expiresAt = new Date(createdAt.getTime() + durationMs(ttl));
  const opened = await run.deps.previews.open(
    found.map((f) => ({
      ...f,
      deploymentId: run.deps.deploymentId,
      stepKey: step.key,
      target: run.target.name,
      account: run.target.account,
      createdAt,
      expiresAt,
    })),
  );
  const until = opened[0]?.expiresAt ?? expiresAt.toISOString();
  run.deps.log(`preview URLs of ${services.join(', ')} open until ${until} (the deployment's previews)`);
  return `preview URLs of ${services.join(', ')} open until ${until}`;
};
