// deploy: the target's manifests applied with each Deployment as a versioned ReplicaSet, at full
// size the first time (or for blue/green) and at 0 for a canary; the previous versions noted for
// the steps after and for a rollback, and its sequence among the workload's versions (one cluster
// in the read model, as Spinnaker's versioned ReplicaSets). Blue/green keeps the active Service on
// the live version.
import type { ManifestObject } from '../../deployment-file/manifest-documents.ts';
import type { Workload } from '../deployment-progress.ts';
import {
  MONIKER_SEQUENCE,
  selectVersion,
  VERSION_LABEL,
  versionedManifests,
  WORKLOAD_LABEL,
  withSequence,
} from '../versioned-manifests.ts';
import { record, type StepContext, StepFailure } from './step-context.ts';
import type { StepKind } from './step-kind.ts';

/** The workload's ReplicaSets in the cluster: every version, live or scaled down. */
async function listedVersions(run: StepContext, workload: { name: string; namespace: string }) {
  const answer = record(
    await run.deps.read(run.target.account, 'list', {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      namespace: workload.namespace,
      labelSelector: `${WORKLOAD_LABEL}=${workload.name}`,
    }),
  );
  const items = Array.isArray(answer.items) ? answer.items.map(record) : [];
  return items.map((item) => {
    const metadata = record(item.metadata);
    const labels = record(metadata.labels);
    const sequence = Number(record(metadata.annotations)[MONIKER_SEQUENCE]);
    const replicas = record(item.spec).replicas;
    return {
      name: String(metadata.name),
      version: typeof labels[VERSION_LABEL] === 'string' ? labels[VERSION_LABEL] : '',
      replicas: typeof replicas === 'number' ? replicas : 0,
      sequence: Number.isInteger(sequence) ? sequence : undefined,
    };
  });
}

/** The versions live before the run, largest first, and the sequence this run's version takes. */
async function previousVersions(
  run: StepContext,
  workload: { name: string; namespace: string; replicaSet: string },
): Promise<Pick<Workload, 'previous' | 'sequence'>> {
  const listed = (await listedVersions(run, workload)).filter((rs) => rs.name !== workload.replicaSet);
  const sequences = listed.map((rs) => rs.sequence ?? -1);
  return {
    previous: listed
      .filter((rs) => rs.replicas > 0)
      .map(({ name, version, replicas }) => ({ name, version, replicas }))
      .sort((a, b) => b.replicas - a.replicas),
    // Versions from before sequences were written count as one each, so the next is still the newest.
    sequence: Math.max(listed.length - 1, ...sequences) + 1,
  };
}

/** The workloads rolled out, with their previous versions; read once, then stored. */
async function workloadsOf(
  run: StepContext,
  versioned: ReturnType<typeof versionedManifests>,
): Promise<Workload[]> {
  const { target } = run;
  if (target.workloads === undefined) {
    const workloads: Workload[] = [];
    for (const w of versioned.workloads) {
      workloads.push({
        name: w.name,
        namespace: w.namespace,
        replicaSet: w.replicaSet,
        version: w.version,
        desired: w.desired,
        ...(await previousVersions(run, w)),
      });
    }
    target.workloads = workloads;
    await run.deps.save();
  }
  return target.workloads;
}

/** Until the switch the active Service keeps selecting the version live before the run. */
function blueGreenServices(
  others: ManifestObject[],
  blueGreen: { activeService: string; previewService?: string },
  workload: Workload | undefined,
): ManifestObject[] {
  const { activeService, previewService } = blueGreen;
  if (workload === undefined)
    throw new StepFailure('blue/green needs a Deployment among the manifests', false);
  const isService = (o: ManifestObject, name: string) =>
    o.kind === 'Service' && record(o.metadata).name === name;
  if (!others.some((o) => isService(o, activeService)))
    throw new StepFailure(`activeService ${activeService} is not among the target's manifests`, false);
  const liveVersion = workload.previous[0]?.version ?? workload.version;
  return others.map((o) =>
    isService(o, activeService)
      ? selectVersion(o, liveVersion)
      : previewService !== undefined && isService(o, previewService)
        ? selectVersion(o, workload.version)
        : o,
  );
}

/** Strategy steps skipped where there is nothing to roll out by steps. */
function skipStrategy(run: StepContext, reason: string): void {
  for (const step of run.target.steps) {
    if (step.phase === 'strategy' && step.status === 'PENDING') run.setStep(step, 'SKIPPED', reason);
  }
}

export const deployStep: StepKind = async (step, run) => {
  const strategy = run.strategy();
  const versioned = versionedManifests(run.deps.manifests, run.versionContext());
  const workloads = await workloadsOf(run, versioned);
  const first = workloads.every((w) => w.previous.length === 0);
  const full = first || 'blueGreen' in strategy;
  const others =
    'blueGreen' in strategy
      ? blueGreenServices(versioned.others, strategy.blueGreen, workloads[0])
      : versioned.others;
  const replicaSets = versioned.workloads.map((w) => {
    const state = workloads.find((s) => s.replicaSet === w.replicaSet);
    const sized = {
      ...w.manifest,
      spec: { ...record(w.manifest.spec), replicas: full ? (state?.desired ?? w.desired) : 0 },
    };
    return withSequence(sized, state?.sequence);
  });
  await run.deps.operation(step.operationIds, 0, run.target.account, 'deploy', {
    manifests: [...others, ...replicaSets],
  });
  const deadline = await run.readyDeadline(step);
  for (const w of workloads) await run.waitReady(w, w.replicaSet, full ? w.desired : 0, deadline, false);
  if (workloads.length === 0) {
    skipStrategy(run, 'no Deployment among the manifests: nothing to roll out by steps');
    return `applied ${replicaSets.length + others.length} objects`;
  }
  if (first) {
    skipStrategy(run, 'first version of the workload: rolled out in full, nothing to compare with');
    return `first version: ${workloads.map((w) => `${w.replicaSet} at ${w.desired}`).join(', ')}`;
  }
  return `${workloads.map((w) => `${w.replicaSet} at ${full ? w.desired : 0}`).join(', ')}`;
};
