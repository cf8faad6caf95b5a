// Artifacts: their schema, the artifact accounts cloudctl serves, reading the content of artifacts
// that carry it, and the routes that list the accounts and fetch content.

export { type Artifact, artifactSchema } from './artifact.ts';
export {
  ARTIFACT_ACCOUNTS,
  type ArtifactAccount,
  EMBEDDED_ARTIFACT_ACCOUNT,
  ORCHESTRATOR_ARTIFACT_ACCOUNT,
} from './artifact-accounts.ts';
export { artifactRoutes } from './artifact-routes.ts';
export { ARTIFACT_ERRORS, ArtifactError, embeddedContent } from './embedded-content.ts';
