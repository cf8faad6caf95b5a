// The manifests of a `source: artifact` deploy. The API we mirror downloads the manifest artifact
// from its artifact store; cloudctl reaches none, so it reads only artifacts that carry their
// content, `embedded/base64` (and `remote/base64`, the same content under another name): the
// reference is the base64 text of a YAML stream. Any other type is refused, naming the type.
// Pipeline expressions (`${...}`) are evaluated by Orca, which cloudctl has no context for: a
// manifest holding one is refused unless `skipExpressionEvaluation` says to deploy it as written.
import { CORE_SCHEMA, loadAll } from 'js-yaml';
import type { z } from 'zod';
import { isRecord } from '../../../../lib/is-record.ts';
import { EMBEDDED_ARTIFACT_ACCOUNT } from '../../../artifacts/index.ts';
import { PayloadError } from '../converter.ts';
import type { Artifact } from './artifact.ts';
import { type DeployArtifactFields, resolveExpectedArtifact } from './deploy-artifacts.ts';

const READABLE_TYPES: readonly string[] = EMBEDDED_ARTIFACT_ACCOUNT.types;
/** Where a pipeline expression starts. */
const EXPRESSION_START = ['$', '{'].join('');
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function manifestArtifact(fields: DeployArtifactFields): { artifact: Artifact; path: string } {
  if (fields.manifestArtifactId) {
    const path = 'manifestArtifactId';
    return { artifact: resolveExpectedArtifact(fields, fields.manifestArtifactId, path), path };
  }
  if (fields.manifestArtifact) return { artifact: fields.manifestArtifact, path: 'manifestArtifact' };
  throw new PayloadError(
    'manifestArtifact',
    "source 'artifact' needs a manifestArtifact or a manifestArtifactId",
  );
}

function decode(artifact: Artifact, path: string): string {
  const type = artifact.type ?? '';
  if (!READABLE_TYPES.includes(type)) {
    throw new PayloadError(
      `${path}.type`,
      `cannot read a manifest artifact of type '${type}': cloudctl reaches no artifact store; ` +
        `send the manifest as ${READABLE_TYPES.join(' or ')} or as text`,
    );
  }
  const reference = (artifact.reference ?? '').replace(/\s+/g, '');
  if (reference === '' || !BASE64.test(reference) || reference.length % 4 === 1) {
    throw new PayloadError(`${path}.reference`, 'expected the base64 text of the manifests');
  }
  return Buffer.from(reference, 'base64').toString('utf8');
}

function parse(text: string, path: string): unknown[] {
  let documents: unknown[];
  try {
    documents = loadAll(text, null, { schema: CORE_SCHEMA });
  } catch (error) {
    throw new PayloadError(
      `${path}.reference`,
      `not YAML: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  // A document may be one manifest or a list of them; empty documents (a trailing `---`) are none.
  const manifests = documents.flatMap((d) => (Array.isArray(d) ? d : d == null ? [] : [d]));
  const bad = manifests.findIndex((m) => !isRecord(m));
  if (bad >= 0) throw new PayloadError(`${path}.reference`, `manifest ${bad + 1} is not an object`);
  if (manifests.length === 0) throw new PayloadError(`${path}.reference`, 'holds no manifest');
  return manifests;
}

/** The manifests a `source: artifact` deploy names, each checked with `schema`. */
export function readManifestArtifact<S extends z.ZodType>(
  fields: DeployArtifactFields,
  schema: S,
): z.output<S>[] {
  const { artifact, path } = manifestArtifact(fields);
  const account = artifact.artifactAccount || fields.manifestArtifactAccount;
  if (account && account !== EMBEDDED_ARTIFACT_ACCOUNT.name) {
    throw new PayloadError(
      `${path}.artifactAccount`,
      `unknown artifact account '${account}'; cloudctl's is '${EMBEDDED_ARTIFACT_ACCOUNT.name}'`,
    );
  }
  const text = decode(artifact, path);
  if (!fields.skipExpressionEvaluation && text.includes(EXPRESSION_START)) {
    throw new PayloadError(
      path,
      `the manifests hold pipeline expressions (${EXPRESSION_START}...}), which cloudctl cannot evaluate; evaluate them ` +
        'before sending, or set skipExpressionEvaluation: true to deploy them as written',
    );
  }
  return parse(text, path).map((document, i) => {
    const checked = schema.safeParse(document);
    if (checked.success) return checked.data;
    const issue = checked.error.issues[0];
    const where = issue?.path.map(String).join('.') ?? '';
    throw new PayloadError(
      `${path}.reference`,
      `manifest ${i + 1}${where ? ` at ${where}` : ''}: ${issue?.message ?? 'invalid'}`,
    );
  });
}
