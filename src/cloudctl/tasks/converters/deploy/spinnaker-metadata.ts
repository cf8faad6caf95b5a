// The metadata Spinnaker's Kubernetes provider writes on what it deploys, so its clients (and our
// read model) find applications, clusters and versions: the moniker annotations, the artifact
// annotations that name an object's base name and version, and the `app.kubernetes.io` labels plus
// the sequence label, on the object and on its pod template (clouddriver's KubernetesManifestLabeler,
// KubernetesManifestAnnotater and KubernetesManifestNamer). What a manifest sets itself wins, except
// `managed-by` and the sequence, which describe this deploy.
import { isRecord } from '../../../../lib/is-record.ts';
import { MONIKER, RECOMMENDED_NAME_LABEL } from '../../../read-model/index.ts';

export const ARTIFACT = {
  name: 'artifact.spinnaker.io/name',
  type: 'artifact.spinnaker.io/type',
  location: 'artifact.spinnaker.io/location',
  version: 'artifact.spinnaker.io/version',
} as const;

export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
/** clouddriver's value; Spinnaker's own tools and dashboards select on it. */
export const MANAGED_BY = 'spinnaker';

export interface Moniker {
  app: string;
  cluster: string;
  stack?: string | undefined;
  detail?: string | undefined;
  sequence?: number | undefined;
}

/** What an object was deployed as: its base name, kind type, namespace and version (`v003`). */
export interface DeployedArtifact {
  type: string;
  name: string;
  location?: string | undefined;
  version?: string | undefined;
  /** The object's name in the cluster: `name-v003` when versioned. */
  reference?: string | undefined;
}

type Metadata = Record<string, unknown> & {
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
};
export type ManifestObject = Record<string, unknown> & { metadata: Metadata };

const strings = (value: unknown): Record<string, string> =>
  isRecord(value)
    ? Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'))
    : {};

function monikerAnnotations(moniker: Moniker): Record<string, string> {
  return {
    [MONIKER.application]: moniker.app,
    [MONIKER.cluster]: moniker.cluster,
    ...(moniker.stack ? { [MONIKER.stack]: moniker.stack } : {}),
    ...(moniker.detail ? { [MONIKER.detail]: moniker.detail } : {}),
    ...(moniker.sequence === undefined ? {} : { [MONIKER.sequence]: String(moniker.sequence) }),
  };
}

function labelsFor(existing: Record<string, string>, moniker: Moniker): Record<string, string> {
  return {
    [RECOMMENDED_NAME_LABEL]: moniker.app,
    ...existing,
    [MANAGED_BY_LABEL]: MANAGED_BY,
    ...(moniker.sequence === undefined ? {} : { [MONIKER.sequence]: String(moniker.sequence) }),
  };
}

/** The pod template's metadata, for kinds that have one (workloads, Jobs; CronJobs one level down). */
function templatePath(manifest: ManifestObject): string[] | undefined {
  const spec = manifest.spec;
  if (!isRecord(spec)) return undefined;
  if (isRecord(spec.template)) return ['spec', 'template'];
  if (
    isRecord(spec.jobTemplate) &&
    isRecord(spec.jobTemplate.spec) &&
    isRecord(spec.jobTemplate.spec.template)
  ) {
    return ['spec', 'jobTemplate', 'spec', 'template'];
  }
  return undefined;
}

/** A copy of `object` with the record at `path` replaced by `change(record)`. */
function updateAt(
  object: Record<string, unknown>,
  path: readonly string[],
  change: (record: Record<string, unknown>) => Record<string, unknown>,
): Record<string, unknown> {
  const [head, ...rest] = path;
  if (head === undefined) return change(object);
  const inner = isRecord(object[head]) ? object[head] : {};
  return { ...object, [head]: updateAt(inner, rest, change) };
}

/**
 * The manifest named `reference`, with the artifact annotations and the moniker written (annotations,
 * and labels unless `skipSpecTemplateLabels` keeps them off the pod template).
 */
export function withSpinnakerMetadata(
  manifest: ManifestObject,
  moniker: Moniker | undefined,
  artifact: DeployedArtifact,
  options: { skipSpecTemplateLabels: boolean },
): ManifestObject {
  const own = manifest.metadata;
  const annotations = {
    ...(moniker === undefined ? {} : monikerAnnotations(moniker)),
    [ARTIFACT.name]: artifact.name,
    [ARTIFACT.type]: artifact.type,
    [ARTIFACT.location]: artifact.location ?? '',
    ...(artifact.version ? { [ARTIFACT.version]: artifact.version } : {}),
    ...strings(own.annotations),
    // The sequence is this deploy's, whatever a copied manifest carried.
    ...(moniker?.sequence === undefined ? {} : { [MONIKER.sequence]: String(moniker.sequence) }),
  };
  const named: ManifestObject = {
    ...manifest,
    // A generateName manifest keeps its name for the API server to choose.
    metadata: {
      ...own,
      ...(own.name === undefined || !artifact.reference ? {} : { name: artifact.reference }),
      annotations,
    },
  };
  // Without a moniker (no application named) there is nothing to label with, as in clouddriver.
  if (moniker === undefined) return named;
  const labelled: ManifestObject = {
    ...named,
    metadata: { ...named.metadata, labels: labelsFor(strings(own.labels), moniker) },
  };
  const path = templatePath(labelled);
  if (path === undefined || options.skipSpecTemplateLabels) return labelled;
  return updateAt(labelled, path, (template) => {
    const meta = isRecord(template.metadata) ? template.metadata : {};
    return {
      ...template,
      metadata: {
        ...meta,
        annotations: { ...monikerAnnotations(moniker), ...strings(meta.annotations) },
        labels: labelsFor(strings(meta.labels), moniker),
      },
    };
  }) as ManifestObject;
}
