// deploy: the target's manifests applied with each Deployment as a versioned ReplicaSet, at full
// size the first time (or for blue/green) and at 0 for a canary; the previous versions noted for
// the steps after and for a rollback, and its sequence among the workload's versions (one cluster
// in the read model, as Spinnaker's versioned ReplicaSets). Blue/green keeps the active Service on
// the live version.
import type { ManifestObject } from '../../deployment-file/manifest-documents.ts';
import { blueGreenServices } from '../../deployment-file/traffic-management.ts';
import type { WriteCall } from '../deployment-planner.ts';
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
import type { StepKind, WritesOf } from './step-kind.ts';

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

/** The workloads rolled out, with their previous versions: as stored, or read now (and not stored). */
async function workloadsOf(
  run: StepContext,
  versioned: ReturnType<typeof versionedManifests>,
): Promise<Workload[]> {
  if (run.target.workloads !== undefined) return run.target.workloads;
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
  return workloads;
}

/** Until the switch the active Service keeps selecting the version live before the run. */
function blueGreenSelectors(
  others: ManifestObject[],
  services: { activeService: string; previewService?: string } | undefined,
  workload: Workload | undefined,
): ManifestObject[] {
  if (services === undefined) throw new StepFailure('blue/green names no activeService', false);
  const { activeService, previewService } = services;
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

/** What the deploy sends, and what the rest of the step needs to know about it. */
interface Rollout {
  workloads: Workload[];
  /** No version of any workload lives yet. */
  first: boolean;
  /** The new version starts at its full size (a first version, or blue/green). */
  full: boolean;
  call: WriteCall;
  objects: number;
}

async function rollout(run: StepContext): Promise<Rollout> {
  const strategy = run.strategy();
  const versioned = versionedManifests(run.deps.manifests, run.versionContext());
  const workloads = await workloadsOf(run, versioned);
  const first = workloads.every((w) => w.previous.length === 0);
  const full = first || 'blueGreen' in strategy;
  const services = blueGreenServices(run.deps.file, run.target.name);
  const others =
    'blueGreen' in strategy ? blueGreenSelectors(versioned.others, services, workloads[0]) : versioned.others;
  const replicaSets = versioned.workloads.map((w) => {
    const state = workloads.find((s) => s.replicaSet === w.replicaSet);
    const sized = {
      ...w.manifest,
      spec: { ...record(w.manifest.spec), replicas: full ? (state?.desired ?? w.desired) : 0 },
    };
    return withSequence(sized, state?.sequence);
  });
  const manifests = [...others, ...replicaSets];
  return {
    workloads,
    first,
    full,
    call: { type: 'deploy', payload: { manifests } },
    objects: manifests.length,
  };
}

export const deployStep: StepKind = async (step, run) => {
  const { workloads, first, full, call, objects } = await rollout(run);
  if (run.target.workloads === undefined) {
    // Stored before the apply: a rollback after a restart must know what to restore.
    run.target.workloads = workloads;
    await run.deps.save();
  }
  await run.write(step, 0, call);
  const deadline = await run.readyDeadline(step);
  for (const w of workloads) await run.waitReady(w, w.replicaSet, full ? w.desired : 0, deadline, false);
  if (workloads.length === 0) {
    skipStrategy(run, 'no Deployment among the manifests: nothing to roll out by steps');
    return `applied ${objects} objects`;
  }
  if (first) {
    skipStrategy(run, 'first version of the workload: rolled out in full, nothing to compare with');
    return `first version: ${workloads.map((w) => `${w.replicaSet} at ${w.desired}`).join(', ')}`;
  }
  return `${workloads.map((w) => `${w.replicaSet} at ${full ? w.desired : 0}`).join(', ')}`;
};

/** The one apply of the target's manifests, its versions sized as the step would size them. */
export const deployWrites: WritesOf = async (_step, run) => {
  const { workloads, full, call } = await rollout(run);
  return {
    calls: [call],
    unknown: workloads.map(
      (w) =>
        `whether ${w.replicaSet}'s pods get ready (${full ? w.desired : 0} wanted) before deploymentConfig.timeout`,
    ),
  };
};
