// How accounts and revisions look to clients, in the shapes of the API we mirror: the account map of
// GET /credentials (every source), the stored definition, and the revision of the history.
import { z } from 'zod';
import type { AccountSource } from '../accounts/index.ts';
import type { AccountPermissions } from '../auth/index.ts';
import type { StoredAccount } from '../sessions/index.ts';
import type { CredentialsRevision, StoredCredentials } from './credential-store.ts';
import { ORCHESTRATOR, storedDefinitionSchema } from './credentials-definition.ts';

export const accountViewSchema = z
  .looseObject({
    name: z.string(),
    type: z.string().describe(`the cloud provider: ${ORCHESTRATOR}`),
    cloudProvider: z.string(),
    accountType: z.string(),
    environment: z.string(),
    source: z
      .enum(['cloudctl', 'static-agent-config'])
      .describe("where the account is defined: in cloudctl, or in an agent's config file (read-only here)"),
    permissions: z.object({ READ: z.array(z.string()), WRITE: z.array(z.string()) }),
    requiredGroupMembership: z.array(z.string()).describe('always empty; permissions replace it'),
    challengeDestructiveActions: z.boolean(),
    primaryAccount: z.boolean(),
    namespaces: z
      .array(z.string())
      .optional()
      .describe(
        'expanded only: the namespaces Deck offers for the account: those it lists, else those cloudctl sees in its cluster, less those it omits',
      ),
    spinnakerKindMap: z
      .record(z.string(), z.string())
      .optional()
      .describe(
        'expanded only: Kubernetes kind (Spinnaker spelling) → Spinnaker kind (serverGroups, loadBalancers, instances, ...); custom kinds are unclassified',
      ),
  })
  .describe('Account: with expand=true (and always for one account) also the definition fields');

export type AccountView = z.infer<typeof accountViewSchema>;

export const revisionSchema = z
  .object({
    version: z.int().describe('1 for the first write of the name, then one more per write'),
    timestamp: z.int().describe('when the revision was written, epoch milliseconds'),
    deleted: z.boolean(),
    account: storedDefinitionSchema.nullable().describe('the definition written; null for a delete'),
  })
  .describe('Revision');

function summary(
  name: string,
  source: AccountSource,
  permissions: AccountPermissions,
  labels: { environment?: unknown; accountType?: unknown } = {},
): AccountView {
  return {
    name,
    type: ORCHESTRATOR,
    cloudProvider: ORCHESTRATOR,
    accountType: typeof labels.accountType === 'string' ? labels.accountType : name,
    environment: typeof labels.environment === 'string' ? labels.environment : name,
    source,
    permissions: { READ: [...permissions.read], WRITE: [...permissions.write] },
    requiredGroupMembership: [],
    challengeDestructiveActions: false,
    primaryAccount: false,
  };
}

/** An account defined in cloudctl; expanded, with its definition (secret references as stored). */
export function credentialsView(stored: StoredCredentials, expand: boolean): AccountView {
  const view = summary(stored.name, 'cloudctl', stored.permissions, stored.definition);
  return expand ? { ...stored.definition, ...view } : view;
}

/** An account an agent registered from its config file; cloudctl holds no definition of it. */
export function agentAccountView(account: StoredAccount, expand: boolean): AccountView {
  const view = summary(account.name, 'static-agent-config', account.permissions);
  if (!expand) return view;
  return {
    ...view,
    agentId: account.agentId,
    status: account.status,
    apiServerHost: account.apiServerHost,
    kubernetesVersion: account.kubernetesVersion,
  };
}

export interface RevisionView {
  version: number;
  timestamp: number;
  deleted: boolean;
  account: Record<string, unknown> | null;
}

export function revisionView(revision: CredentialsRevision): RevisionView {
  return {
    version: revision.version,
    timestamp: revision.timestamp.getTime(),
    deleted: revision.deleted,
    account: revision.definition,
  };
}
