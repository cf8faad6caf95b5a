// An account definition, the shape both programs speak: one entry of the agent's
// `orchestrator.accounts[]`, a dynamic account cloudctl stores and hands to an agent, a credentials
// definition cloudctl checks. A cluster the agent watches and operates on, and how to reach it.
// Unknown properties are tolerated (entries copied from the control plane carry extras).
import { z } from 'zod';
import { nonEmptyString, nonNegativeInt, stringList } from '../lib/schema-primitives.ts';
import { setting } from '../lib/setting-meta.ts';
import { permissionsSchema } from './permissions.ts';

const DNS_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const CRD_KIND = new RegExp(`^[A-Za-z][A-Za-z0-9]*\\.${DNS_LABEL}(\\.${DNS_LABEL})*$`);

const customResourceDefinition = z.object({
  kind: setting(
    z.string().regex(CRD_KIND, { error: 'expected Kind.group, for example Rollout.argoproj.io' }),
    {
      description: 'custom resource kind in the form `Kind.group`',
      since: '0.4.0',
    },
  ),
  scope: setting(z.enum(['Cluster', 'Namespaced']).default('Namespaced'), {
    description: '`Cluster` or `Namespaced`',
    since: '1.0.9',
  }),
});

function accountShape() {
  return {
    name: setting(nonEmptyString(), { description: 'account name (required, unique)' }),
    context: setting(z.string().default(''), {
      description: 'context of the cluster configuration file; empty uses its current context',
    }),
    customResourceDefinitions: setting(z.array(customResourceDefinition).default([]), {
      description: 'custom resources exposed to the control plane',
      since: '0.4.0',
    }),
    kinds: setting(stringList().default([]), {
      description: 'if non-empty, only these kinds are cached (singular kind names, any case)',
    }),
    omitKinds: setting(stringList().default([]), { description: 'kinds not to cache' }),
    orchConfigFile: setting(nonEmptyString().optional(), {
      description: 'cluster configuration (kubeconfig) file, when serviceAccount is not used',
      file: true,
    }),
    serviceAccount: setting(z.boolean().default(false), {
      description: 'use the pod service account against the API server the agent runs in',
    }),
    insecure: setting(z.boolean().default(false), {
      description: 'do not verify the TLS certificate of the API server',
    }),
    metrics: setting(z.boolean().default(false), { description: 'send pod metrics every 20 s' }),
    namespaces: setting(stringList().default([]), {
      description: 'allow-list of namespaces to watch; empty watches all',
      since: '0.4.0',
    }),
    omitNamespaces: setting(stringList().default([]), { description: 'namespaces not to watch' }),
    onlyNamespacedResources: setting(z.boolean().default(false), {
      description: 'ignore cluster-scoped resources; namespaces and CRDs are sent as synthetic resources',
      since: '0.4.0',
    }),
    onlyPlatformManaged: setting(z.boolean().default(false), {
      description: 'cache only resources deployed through the platform (see docs/decisions.md)',
    }),
    noProxy: setting(z.boolean().default(false), {
      description: 'ignore proxy environment variables for this cluster',
      since: '0.3.1',
    }),
    oAuthScopes: setting(stringList().default([]), {
      description:
        "OAuth scopes for the cloud-provider authenticator: the scopes of the Google access token of a kubeconfig user with the `gcp` auth provider (its key from the provider's `credentials-file` or `GOOGLE_APPLICATION_CREDENTIALS`), or of a user with no credentials of its own when `GOOGLE_APPLICATION_CREDENTIALS` names a service-account key. Empty: the provider's `scopes`, else cloud-platform and userinfo.email, as client-go asked. A gcp user with `cmd-path` runs its command, which chooses the scopes itself (docs/google-credentials.md)",
    }),
    permissions: setting(permissionsSchema.default({}), {
      description:
        '`READ` and `WRITE` role lists, as a map or as a list of single-key entries (`- READ: [...]`); role names without whitespace, numeric names read as strings',
      type: 'map or list',
    }),
    maxResumableResourceAgeMs: setting(nonNegativeInt().default(300_000), {
      description:
        'resume a watch without listing from the resourceVersion the control plane stored, if not older than this; 0 resumes nothing: every watch starts with a list',
    }),
  };
}

function skipShapeAC() {
  return {
    skipManifestDefaults: setting(z.boolean().default(false), {
      description: 'send manifests as they are, without field defaults',
    }),
    skipServerSideApply: setting(z.boolean().default(false), {
      description: 'use client-side apply with the last-applied annotation',
    }),
  };
}

type AccountLike = { serviceAccount: boolean; orchConfigFile?: string | undefined } & {
  onlyNamespacedResources: boolean;
  namespaces: string[];
};

/** The rules over a whole entry; cloudctl applies them to the definitions it stores, too. */
export function checkAccount(account: AccountLike, ctx: z.RefinementCtx) {
  if (account.serviceAccount && account.orchConfigFile !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['orchConfigFile'],
      message:
        'serviceAccount: true and orchConfigFile are mutually exclusive: choose one way to reach the cluster',
    });
  }
  if (account.onlyNamespacedResources && account.namespaces.length === 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['namespaces'],
      message: 'onlyNamespacedResources: true needs a non-empty namespaces list',
    });
  }
}

export const accountSchemaB = () => z.object(accountShape()).superRefine(checkAccount);
export const accountSchemaAC = () =>
  z.object({ ...accountShape(), ...skipShapeAC() }).superRefine(checkAccount);
