// The artifact fields of a deployManifest payload, as Orca sends them (the whole stage context), and
// how they combine, as the API we mirror combines them: required artifacts first, then optional
// ones, then `allArtifacts`; the first of a type, name and namespace wins. With
// `enableArtifactBinding: false` none of them binds and none is required (the artifacts the deploy
// creates still bind). A required artifact that bound nowhere refuses the deploy.
// Orca resolves `requiredArtifactIds` and `{expectedArtifactId, artifact}` entries into plain
// artifacts before it deploys; a payload that still holds ids resolves them against its
// `resolvedExpectedArtifacts`, the pipeline's list Orca resolves them from.
import { z } from 'zod';
import { PayloadError } from '../converter.ts';
import { type Artifact, artifactSchema, describeArtifact, sameArtifact } from './artifact.ts';
import { type BindOptions, type BindResult, bindArtifacts, type ManifestLike } from './bind-artifacts.ts';

/** A stage's `{expectedArtifactId, artifact}`: an artifact by expected-artifact id, or inline. */
const bindArtifactSchema = z
  .strictObject({ expectedArtifactId: z.string().min(1).nullish(), artifact: artifactSchema.nullish() })
  .transform((b) => ({ from: 'stage' as const, ...b }));

const expectedArtifactSchema = z
  .looseObject({
    id: z.string().min(1),
    boundArtifact: artifactSchema.nullish(),
    matchArtifact: artifactSchema.nullish(),
  })
  .describe('ExpectedArtifact');

/** The payload fields; spread into a converter's payload schema. */
export const deployArtifactFields = {
  requiredArtifacts: z
    .array(z.union([bindArtifactSchema, artifactSchema.transform((a) => ({ from: 'artifact' as const, a }))]))
    .nullish()
    .describe('artifacts that must bind, or the deploy is refused'),
  optionalArtifacts: z.array(artifactSchema).nullish().describe('artifacts that bind where they match'),
  allArtifacts: z.array(artifactSchema).nullish().describe('further artifacts that bind where they match'),
  requiredArtifactIds: z
    .array(z.string().min(1))
    .nullish()
    .describe('expected-artifact ids of required artifacts'),
  resolvedExpectedArtifacts: z
    .array(expectedArtifactSchema)
    .nullish()
    .describe('the expected artifacts ids are resolved against'),
  enableArtifactBinding: z.boolean().default(true).describe('false: bind no given artifact'),
  skipExpressionEvaluation: z
    .boolean()
    .default(false)
    .describe('true: a manifest artifact may hold pipeline expressions, deployed as written'),
  manifestArtifact: artifactSchema.nullish().describe("with source 'artifact': the manifest artifact"),
  manifestArtifactId: z
    .string()
    .min(1)
    .nullish()
    .describe("with source 'artifact': its expected-artifact id"),
  manifestArtifactAccount: z
    .string()
    .nullish()
    .describe('the manifest artifact account, where it names none'),
};
const deployArtifactFieldsSchema = z.object(deployArtifactFields);
export type DeployArtifactFields = z.output<typeof deployArtifactFieldsSchema>;

/** The bound artifact of an expected artifact, with the account of its match where it has none. */
export function resolveExpectedArtifact(fields: DeployArtifactFields, id: string, path: string): Artifact {
  const listed = fields.resolvedExpectedArtifacts ?? [];
  const expected = listed.find((e) => e.id === id);
  const bound = expected?.boundArtifact;
  if (!expected || !bound) {
    const known = listed.filter((e) => e.boundArtifact).map((e) => e.id);
    throw new PayloadError(
      path,
      `no resolved expected artifact with id '${id}' (resolvedExpectedArtifacts has ${known.length ? known.join(', ') : 'none'})`,
    );
  }
  if (bound.artifactAccount) return bound;
  return { ...bound, artifactAccount: expected.matchArtifact?.artifactAccount ?? bound.artifactAccount };
}

function requiredArtifacts(fields: DeployArtifactFields): Artifact[] {
  const entries = fields.requiredArtifacts ?? [];
  const ids = fields.requiredArtifactIds ?? [];
  // Orca puts what the ids resolved to into requiredArtifacts and leaves the ids in the context.
  const idsResolved = fields.resolvedExpectedArtifacts == null && entries.length >= ids.length;
  const fromIds = idsResolved
    ? []
    : ids.map((id, i) => resolveExpectedArtifact(fields, id, `requiredArtifactIds[${i}]`));
  const fromEntries = entries.map((entry, i) => {
    if (entry.from === 'artifact') return entry.a;
    if (entry.expectedArtifactId) {
      return resolveExpectedArtifact(
        fields,
        entry.expectedArtifactId,
        `requiredArtifacts[${i}].expectedArtifactId`,
      );
    }
    if (entry.artifact) return entry.artifact;
    throw new PayloadError(`requiredArtifacts[${i}]`, 'names neither an artifact nor an expectedArtifactId');
  });
  return [...fromIds, ...fromEntries];
}

/** Binds a deploy's artifacts into its manifests; a required artifact bound nowhere is a PayloadError. */
export function bindDeployArtifacts<M extends ManifestLike>(
  manifests: readonly M[],
  fields: DeployArtifactFields,
  options: BindOptions<M>,
): BindResult<M> {
  const enabled = fields.enableArtifactBinding;
  const required = enabled ? requiredArtifacts(fields) : [];
  const optional = enabled ? [...(fields.optionalArtifacts ?? []), ...(fields.allArtifacts ?? [])] : [];
  const result = bindArtifacts(manifests, [...required, ...optional], options);
  const unbound = required.filter((r) => !result.boundArtifacts.some((b) => sameArtifact(r, b)));
  if (unbound.length > 0) {
    throw new PayloadError(
      'requiredArtifacts',
      `could not be bound: ${unbound.map(describeArtifact).join('; ')}. An image binds where a container's ` +
        "image, without tag or digest, equals the artifact's name; a ConfigMap or Secret where a pod " +
        "template names it in the artifact's namespace and account",
    );
  }
  return result;
}
