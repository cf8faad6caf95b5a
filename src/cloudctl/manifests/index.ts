// Manifests as Spinnaker's Kubernetes stages read them: one object with its status per kind,
// moniker, artifacts and events, and a cluster's versions by dynamic criteria (newest, oldest, ...).
export { CRITERIA, type Criteria, pickTarget } from './dynamic-target.ts';
export { type ManifestStatus, manifestStatus, manifestStatusSchema } from './manifest-status.ts';
export { type ManifestsFeature, type ManifestsFeatureDeps, manifestsFeature } from './manifests-feature.ts';
