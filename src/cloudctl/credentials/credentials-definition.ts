// What a credentials definition is: the agent's own `orchestrator.accounts[]` entry (same schema, so
// cloudctl accepts exactly what an agent would), plus the fields of the API we mirror (`type`,
// `environment`, `accountType`) and `orchConfigContents`. Fields that hold a credential take only
// secret references: cloudctl returns definitions as stored and keeps every revision, so a literal
// secret would be readable by every reader of the account, forever.
import { z } from 'zod';
import { accountSchemaAC, checkAccount } from '../../contract/index.ts';
import { parseSecretReference } from '../../secrets/index.ts';
import type { AccountPermissions } from '../auth/index.ts';

/** The only account type cloudctl defines; the API we mirror calls it the cloud provider. */
export const ORCHESTRATOR = 'orchestrator';

const ACCOUNT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Names travel in URL paths and Kubernetes labels: letters, digits, '.', '_' and '-', no '/'. */
export const accountNameSchema = z
  .string()
  .min(1, { error: 'an account name must not be empty' })
  .max(253, { error: 'an account name has at most 253 characters' })
  .regex(ACCOUNT_NAME, {
    error:
      "an account name is letters, digits, '.', '_' and '-', starting with a letter or digit (no '/', no spaces): it is used in URL paths",
  })
  .refine((name) => name !== 'type', {
    error: "'type' is reserved: /credentials/type/{accountType} would hide the account's history",
  });

const LITERAL_SECRET =
  'must be a secret reference (encrypted:<engine>!key:value… or encryptedFile:<engine>!…), not the secret itself: definitions are returned as stored and kept in the history';

/** A field that holds a credential: a reference the agent resolves, never the value. */
function secretReference(description: string) {
  return z
    .string()
    .superRefine((value, ctx) => {
      const parsed = parseSecretReference(value);
      if (typeof parsed !== 'string') return;
      // Never echo the value: it may be the very secret we refuse to store.
      ctx.addIssue({
        code: 'custom',
        message: parsed === 'not a secret reference' ? LITERAL_SECRET : `invalid secret reference: ${parsed}`,
      });
    })
    .meta({ description, secret: true });
}

export const credentialsDefinitionSchema = z
  .strictObject(
    {
      ...accountSchemaAC().shape,
      name: accountNameSchema.describe('account name: unique among every account cloudctl knows'),
      type: z
        .literal(ORCHESTRATOR, {
          error: `type must be '${ORCHESTRATOR}', the only account type cloudctl defines`,
        })
        .describe(`account type; always '${ORCHESTRATOR}'`),
      environment: z
        .string()
        .min(1)
        .optional()
        .describe('environment the account belongs to; default: its name'),
      accountType: z.string().min(1).optional().describe('account type shown to clients; default: its name'),
      orchConfigContents: secretReference(
        'the cluster configuration (kubeconfig) itself, as an encrypted: or encryptedFile: reference',
      ).optional(),
    },
    {
      // Strict, unlike the agent's entry: a misspelt field here would be stored and silently ignored.
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `unknown field ${issue.keys.join(', ')}: an orchestrator account definition has no such field (CredentialsDefinition in /v2/api-docs lists them)`
          : undefined,
    },
  )
  .superRefine(checkAccount)
  .superRefine((definition, ctx) => {
    const alsoGiven = definition.orchConfigFile !== undefined || definition.serviceAccount;
    if (definition.orchConfigContents !== undefined && alsoGiven) {
      ctx.addIssue({
        code: 'custom',
        path: ['orchConfigContents'],
        message:
          'orchConfigContents, orchConfigFile and serviceAccount: true are mutually exclusive: choose one way to reach the cluster',
      });
    }
    if (definition.orchConfigFile?.includes('\n')) {
      ctx.addIssue({
        code: 'custom',
        path: ['orchConfigFile'],
        message:
          'holds several lines, like a cluster configuration itself: give a path or an encryptedFile: reference here, or the configuration as an encrypted: reference in orchConfigContents',
      });
    }
  })
  .describe('CredentialsDefinition');

/** A definition as validated, with the agent's defaults filled in: what is stored and returned. */
export type CredentialsDefinition = z.output<typeof credentialsDefinitionSchema>;

/** A stored definition as clients receive it (and as older revisions were stored). */
export const storedDefinitionSchema = z
  .looseObject({ name: z.string(), type: z.string() })
  .describe('CredentialsDefinition');

export function permissionsOf(definition: CredentialsDefinition): AccountPermissions {
  return { read: definition.permissions.READ ?? [], write: definition.permissions.WRITE ?? [] };
}
