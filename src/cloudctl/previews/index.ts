// Previews: temporary URLs that reach a Service of an account's cluster from outside it, through the
// agent serving the account; opened by deployments' exposeServices steps. Other folders import from here.
export {
  PREVIEW_STATES,
  type PreviewRecord,
  type PreviewState,
  previewRecordSchema,
} from './preview-record.ts';
export { type NewPreview, PreviewStore, type StoredPreview } from './preview-store.ts';
export { type PreviewTables, previewsMigration } from './preview-tables.ts';
export {
  type PreviewLinks,
  type PreviewsFeature,
  type PreviewsFeatureDeps,
  previewsFeature,
} from './previews-feature.ts';
