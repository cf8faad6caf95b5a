// Drift: objects cloudctl deployed that other field managers changed since. The agent summarises
// it from managedFields, caching stores it with each object, this folder says it in words, keeps what
// cloudctl deployed (tasks' DeployRecords) and plans it again (re-apply).
export { type DeployedManifest, DeployedManifestStore } from './deployed-manifest-store.ts';
export { type DriftFeature, type DriftFeatureDeps, driftFeature } from './drift-feature.ts';
export { type DriftTables, deployedManifestsMigration } from './drift-tables.ts';
export { driftSentence, driftSentences } from './drift-words.ts';
