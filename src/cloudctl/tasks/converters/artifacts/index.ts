// Spinnaker artifacts in a deploy: their schema, binding them into manifests as the API we mirror
// does, and reading `source: artifact` manifests from embedded artifacts.
export { type Artifact, artifactSchema } from './artifact.ts';
export { type ArtifactResult, artifactResult, storedArtifactResult } from './artifact-result.ts';
export {
  type BindOptions,
  type BindResult,
  bindArtifacts,
  createdArtifact,
  type ManifestLike,
  versionText,
} from './bind-artifacts.ts';
export { bindDeployArtifacts, type DeployArtifactFields, deployArtifactFields } from './deploy-artifacts.ts';
export { readManifestArtifact } from './manifest-artifact.ts';
export { imageName } from './replacers.ts';
