// The variables the deployment service provides to webhook templates as `{{vendor.<name>}}`, spelled
// as the spec's "Context variables" table spells them.
export const VENDOR_VARIABLES = [
  'applicationName',
  'deploymentId',
  'environmentName',
  'replicaSetName',
  'accountName',
  'namespace',
  'callbackUri',
  // Not in the spec's table: the plan of the step after a webhook gate (GET /plans/{id}, absolute),
  // empty when the gate has none (docs/deployment-files.md).
  'planUri',
] as const;

export type VendorVariable = (typeof VENDOR_VARIABLES)[number];

/**
 * The values known when a step runs. A value may be missing where the run does not have it yet
 * (no new ReplicaSet before a target deploys, for example); a template using it then fails to render.
 */
export type VendorValues = Partial<Record<VendorVariable, string>>;
