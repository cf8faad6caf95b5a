// The artifact accounts cloudctl serves, as the API we mirror lists them at /artifacts/credentials:
// the embedded account, whose artifacts carry their content in `reference` (base64), and the
// orchestrator account, whose artifacts are objects in a cluster (versioned ConfigMaps, Secrets,
// Deployments, ReplicaSets) that a deploy binds and creates. cloudctl reaches no other artifact
// store (no Git, HTTP, S3 or registry credentials), so it lists no other account.
import { z } from 'zod';

export const artifactAccountSchema = z
  .object({
    name: z.string().describe('the account name artifacts give as `artifactAccount`'),
    type: z.string().describe('the kind of credentials (`artifacts-embedded`)'),
    types: z.array(z.string()).describe('the artifact types the account handles'),
  })
  .describe('ArtifactCredentials');
export type ArtifactAccount = z.infer<typeof artifactAccountSchema>;

/** The account whose artifacts hold their content; its name and types are the API's. */
export const EMBEDDED_ARTIFACT_ACCOUNT = {
  name: 'embedded-artifact',
  type: 'artifacts-embedded',
  // `remote/base64` is the same content under another type name (what a trigger forwards).
  types: ['embedded/base64', 'remote/base64'],
} as const satisfies ArtifactAccount;

/** Objects in an account's cluster, by the names a deploy gives them. */
export const ORCHESTRATOR_ARTIFACT_ACCOUNT = {
  name: 'orchestrator',
  type: 'artifacts-orchestrator',
  types: [
    'orchestrator/configMap',
    'orchestrator/deployment',
    'orchestrator/replicaSet',
    'orchestrator/secret',
  ],
} as const satisfies ArtifactAccount;

export const ARTIFACT_ACCOUNTS: readonly ArtifactAccount[] = [
  EMBEDDED_ARTIFACT_ACCOUNT,
  ORCHESTRATOR_ARTIFACT_ACCOUNT,
];
