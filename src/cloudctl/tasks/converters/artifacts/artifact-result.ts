// What a deploy's task result reports about artifacts, as the API we mirror reports it:
// `boundArtifacts` (each given or created artifact that replaced something) and `createdArtifacts`
// (one per manifest deployed: `orchestrator/<kind>`, the unversioned name, the namespace, the
// version and the versioned name). Found while converting, kept with the task step, read back
// when the step has succeeded.
import { z } from 'zod';
import { artifactSchema } from './artifact.ts';
import type { BindResult } from './bind-artifacts.ts';

const artifactResultSchema = z.object({
  boundArtifacts: z.array(artifactSchema).default([]),
  createdArtifacts: z.array(artifactSchema).default([]),
});
export type ArtifactResult = z.output<typeof artifactResultSchema>;

/** The part of a binding the result reports, to keep with the task step. */
export function artifactResult(bound: BindResult<unknown>): ArtifactResult {
  return { boundArtifacts: bound.boundArtifacts, createdArtifacts: bound.createdArtifacts };
}

/** The artifacts kept with a step; none for a step stored before artifacts were kept. */
export function storedArtifactResult(details: unknown): ArtifactResult {
  const parsed = artifactResultSchema.safeParse(details ?? {});
  return parsed.success ? parsed.data : { boundArtifacts: [], createdArtifacts: [] };
}
