// Artifact accounts: what cloudctl can read artifacts from, and the route that lists them.
export {
  ARTIFACT_ACCOUNTS,
  type ArtifactAccount,
  EMBEDDED_ARTIFACT_ACCOUNT,
  ORCHESTRATOR_ARTIFACT_ACCOUNT,
} from './artifact-accounts.ts';
export { artifactRoutes } from './artifact-routes.ts';
