// The manifests of a `source: artifact` deploy. The API we mirror downloads the manifest artifact
// from its artifact store; cloudctl reaches none, so it reads only artifacts that carry their
// content, `embedded/base64` (and `remote/base64`, the same content under another name): the
// reference is the base64 text of a YAML stream. Any other type is refused, naming the type.
// Pipeline expressions (`${...}`) are evaluated by Orca, which cloudctl has no context for: a
// manifest holding one is refused unless `skipExpressionEvaluation` says to deploy it as written.
import { CORE_SCHEMA, loadAll } from 'js-yaml';
import type { z } from 'zod';
import { isRecord } from '../../../../lib/is-record.ts';
import { ArtifactError, embeddedContent } from '../../../artifacts/index.ts';
import { PayloadError } from '../converter.ts';
import type { Artifact } from './artifact.ts';
import { type DeployArtifactFields, resolveExpectedArtifact } from './deploy-artifacts.ts';

/** Where a pipeline expression starts. */
const EXPRESSION_START = ['$', '{'].join('');

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

function decode(artifact: Artifact, fields: DeployArtifactFields, path: string): string {
  try {
    return embeddedContent(artifact, fields.manifestArtifactAccount).toString('utf8');
  } catch (error) {
    if (error instanceof ArtifactError) throw new PayloadError(`${path}.${error.field}`, error.message);
    throw error;
  }
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
  const text = decode(artifact, fields, path);
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
