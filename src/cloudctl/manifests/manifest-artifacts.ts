// The artifacts a manifest refers to, as clouddriver lists them on a manifest: the docker images of
// its containers, the ConfigMaps and Secrets its pods mount or read, and the Deployment or
// ReplicaSet an autoscaler scales. Spinnaker's UI shows them and pipelines bind later versions by
// them. Pure: a function of the object.
import { z } from 'zod';
import { isRecord } from '../../lib/is-record.ts';

export const artifactSchema = z
  .object({
    type: z.string().describe('docker/image, orchestrator/configMap, orchestrator/secret, ...'),
    name: z.string().describe('an image without its tag or digest; an object name'),
    reference: z.string().describe('the reference as the manifest writes it'),
  })
  .describe('Artifact');
export type Artifact = z.infer<typeof artifactSchema>;

type Obj = Record<string, unknown>;
const record = (value: unknown): Obj => (isRecord(value) ? value : {});
const records = (value: unknown): Obj[] => (Array.isArray(value) ? value.filter(isRecord) : []);
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/**
 * An image's name: before a digest's `@`, else before a tag's `:`. Unlike clouddriver, a registry's
 * port (`localhost:5000/app`) is not taken for a tag: only a `:` after the last `/` starts one.
 */
export function imageName(reference: string): string {
  const at = reference.indexOf('@');
  if (at >= 0) return reference.slice(0, at);
  const colon = reference.lastIndexOf(':');
  return colon > reference.lastIndexOf('/') ? reference.slice(0, colon) : reference;
}

/** The pod specs inside the object: a Pod's own, a controller's template, a CronJob's job template. */
function podSpecs(kind: string, object: Obj): Obj[] {
  const spec = record(object.spec);
  if (kind === 'Pod') return [spec];
  const specs: Obj[] = [];
  if (isRecord(spec.template)) specs.push(record(spec.template.spec));
  const jobTemplate = record(record(spec.jobTemplate).spec);
  if (isRecord(jobTemplate.template)) specs.push(record(jobTemplate.template.spec));
  return specs;
}

function podSpecArtifacts(kind: string, podSpec: Obj): Artifact[] {
  const found: Artifact[] = [];
  const add = (type: string, reference: string | undefined, name = reference) => {
    if (reference !== undefined && name !== undefined) found.push({ type, name, reference });
  };
  for (const c of [...records(podSpec.containers), ...records(podSpec.initContainers)]) {
    const image = text(c.image);
    // A bare Pod's images keep their tag in the name, as clouddriver's rule for pods does.
    add('docker/image', image, kind === 'Pod' || image === undefined ? image : imageName(image));
    for (const env of records(c.env)) {
      const from = record(env.valueFrom);
      add('orchestrator/configMap', text(record(from.configMapKeyRef).name));
      add('orchestrator/secret', text(record(from.secretKeyRef).name));
    }
    for (const env of records(c.envFrom)) {
      add('orchestrator/configMap', text(record(env.configMapRef).name));
      add('orchestrator/secret', text(record(env.secretRef).name));
    }
  }
  if (kind === 'Pod') return found;
  for (const volume of records(podSpec.volumes)) {
    add('orchestrator/configMap', text(record(volume.configMap).name));
    add('orchestrator/secret', text(record(volume.secret).secretName));
    for (const source of records(record(volume.projected).sources)) {
      add('orchestrator/configMap', text(record(source.configMap).name));
      add('orchestrator/secret', text(record(source.secret).name));
    }
  }
  return found;
}

/** What an autoscaler scales, when it is a Deployment or a ReplicaSet. */
function scaleTarget(object: Obj): Artifact[] {
  const target = record(record(object.spec).scaleTargetRef);
  const name = text(target.name);
  const type =
    target.kind === 'Deployment'
      ? 'orchestrator/deployment'
      : target.kind === 'ReplicaSet'
        ? 'orchestrator/replicaSet'
        : undefined;
  return name === undefined || type === undefined ? [] : [{ type, name, reference: name }];
}

/** The artifacts the object refers to, each once, in the order the object names them. */
export function manifestArtifacts(kind: string, object: unknown): Artifact[] {
  const body = record(object);
  const all =
    kind === 'HorizontalPodAutoscaler'
      ? scaleTarget(body)
      : podSpecs(kind, body).flatMap((spec) => podSpecArtifacts(kind, spec));
  const seen = new Set<string>();
  return all.filter((a) => {
    const key = `${a.type}\0${a.name}\0${a.reference}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
