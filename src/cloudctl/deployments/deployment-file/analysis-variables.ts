// The variables a Prometheus query template reads as `{{vendor.<name>}}`: the original product's
// `{{armory.*}}` ones under our vendor's name, plus the old version's, which the original leaves out
// but a query comparing the two versions needs. Values are filled per judgment and per workload.
export const ANALYSIS_VARIABLES = [
  'applicationName',
  'environmentName',
  'accountName',
  'namespace',
  'deploymentId',
  /** The new version's ReplicaSet (`potato-7f9c2`). */
  'replicaSetName',
  /** The version it replaces; a query using it fails its judgment when there is none. */
  'previousReplicaSetName',
  /** The new version's `deploy.vendor.io/version` label (the ReplicaSet's name without the workload's). */
  'version',
  'previousVersion',
  /** The range query's step, in PromQL's duration form (`1s`, `6s`): one tenth of the interval. */
  'promQlStepInterval',
  /** The judged interval in seconds: `rate(x[{{vendor.intervalSeconds}}s])`. */
  'intervalSeconds',
] as const;

export type AnalysisVariable = (typeof ANALYSIS_VARIABLES)[number];

export type AnalysisValues = Partial<Record<AnalysisVariable, string>>;
