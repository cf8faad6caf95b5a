// What the dynamic accounts API reads and takes: the account record (the spec's fields, plus its
// state), the list page, and the migration entry. Input tolerates the spellings the spec's examples
// use (`orchconfigFile`, `lastAssignmnentMsg`); answers use the spec's names only.
import { z } from 'zod';
import { parseSecretReference } from '../../secrets/index.ts';
import { ACCOUNT_STATES } from './account-state.ts';

const agentEntrySchema = z.object({
  agentId: z.string(),
  caching: z.boolean().describe('true: the agent watches and caches it; false: operations only'),
});

/** A name both an agent's config file and cloudctl define, and which definition is in force. */
export const definitionConflictSchema = z
  .object({
    winner: z.object({ source: z.literal('static-agent-config'), agentId: z.string() }),
    overridden: z.object({ source: z.literal('cloudctl') }),
    message: z.string(),
  })
  .describe('DefinitionConflict');
export type DefinitionConflict = z.infer<typeof definitionConflictSchema>;

/** The conflict of a name an agent defines statically, when cloudctl defines it too. */
export function definitionConflict(account: string, agentId: string): DefinitionConflict {
  return {
    winner: { source: 'static-agent-config', agentId },
    overridden: { source: 'cloudctl' },
    message: `account ${account} is defined by agent ${agentId}'s config file and in cloudctl: the agent's definition wins, and cloudctl's is sent to no agent`,
  };
}

export const accountRecordSchema = z
  .object({
    name: z.string(),
    type: z.string().describe('the cloud provider: always orchestrator'),
    source: z
      .string()
      .describe("where the account is defined: cloudctl, or static-agent-config (an agent's config file)"),
    config: z
      .record(z.string(), z.unknown())
      .describe('the account as defined; credentials appear as the secret references they are, never values'),
    zoneId: z
      .string()
      .nullable()
      .describe('the zone the account is pinned to; null: any agent that takes dynamic accounts'),
    agents: z
      .array(agentEntrySchema)
      .describe(
        'the agents confirmed to handle the account: for a cloudctl account, those that reported it ACTIVE',
      ),
    pendingAgents: z
      .array(agentEntrySchema)
      .describe(
        'agents the account was sent to that have not confirmed it yet; always empty for a static account',
      ),
    lastAssignmentMsg: z
      .string()
      .nullable()
      .describe("the last message of assigning the account to agents, with the agent's own words on failure"),
    state: z
      .string()
      .describe(
        `${ACCOUNT_STATES.join(', ')}; a static account is ACTIVE or FAILED as its agent reports, ORPHANED while its agent is away`,
      ),
    conflict: definitionConflictSchema
      .nullable()
      .describe(
        "both an agent's config and cloudctl define the name: the agent's definition wins (rule 2) and cloudctl's is sent to no agent; null otherwise",
      ),
  })
  .describe('DynamicAccount');

export type AccountRecord = z.infer<typeof accountRecordSchema>;

export const accountListSchema = z
  .object({
    items: z.array(accountRecordSchema),
    page: z.int(),
    limit: z.int(),
    total: z.int().describe('accounts the user may read, on every page'),
  })
  .describe('DynamicAccountList');

const LITERAL =
  'give a path or a secret reference (encrypted:… or encryptedFile:…), not the configuration itself';

/** A path to a cluster configuration, or a secret reference to one; never the configuration itself. */
export function orchConfigFileProblem(value: string): string | undefined {
  if (value.trim() === '') return 'must not be empty';
  if (value.includes('\n')) return `holds several lines, like a cluster configuration: ${LITERAL}`;
  if (!value.startsWith('encrypted')) return undefined;
  const parsed = parseSecretReference(value);
  return typeof parsed === 'string' && parsed !== 'not a secret reference'
    ? `invalid secret reference: ${parsed}`
    : undefined;
}

const migrationEntryFields = {
  name: z.string().min(1).describe('an account defined in cloudctl (POST /credentials)'),
  zoneId: z
    .string()
    .min(1)
    .optional()
    .describe("the zone of the agents to take the account; default: the registration's, else any agent"),
  orchConfigFile: z
    .string()
    .optional()
    .describe('the cluster configuration for the agents: a path, or an encrypted:/encryptedFile: reference'),
  orchconfigFile: z.string().optional().describe('the same as orchConfigFile (the spelling of the examples)'),
  state: z
    .string()
    .optional()
    .describe('PATCH: ACTIVE, the only state a client sets; POST: absent or INACTIVE (a 400 otherwise)'),
  lastAssignmentMsg: z.string().optional().describe('ignored: cloudctl writes it'),
  lastAssignmnentMsg: z.string().optional().describe('ignored: cloudctl writes it'),
};

export const migrationEntrySchema = z
  .object(migrationEntryFields)
  .transform((entry, ctx) => {
    if (entry.orchConfigFile !== undefined && entry.orchconfigFile !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['orchconfigFile'],
        message: `account ${entry.name}: give orchConfigFile or orchconfigFile, not both`,
      });
      return z.NEVER;
    }
    const orchConfigFile = entry.orchConfigFile ?? entry.orchconfigFile;
    const problem = orchConfigFile === undefined ? undefined : orchConfigFileProblem(orchConfigFile);
    if (problem !== undefined) {
      // Never echo the value: it may be the very secret the rule keeps out.
      ctx.addIssue({
        code: 'custom',
        path: ['orchConfigFile'],
        message: `account ${entry.name}: orchConfigFile ${problem}`,
      });
      return z.NEVER;
    }
    return { name: entry.name, zoneId: entry.zoneId, orchConfigFile, state: entry.state };
  })
  .describe('MigrationEntry');

export type MigrationEntry = z.output<typeof migrationEntrySchema>;

export const migrationRequestSchema = z
  .array(migrationEntrySchema)
  .min(1, { error: 'name at least one account' })
  .max(1000, { error: 'at most 1000 accounts per request' })
  .superRefine((entries, ctx) => {
    const seen = new Set<string>();
    for (const [index, entry] of entries.entries()) {
      if (seen.has(entry.name))
        ctx.addIssue({
          code: 'custom',
          path: [index, 'name'],
          message: `account ${entry.name} is listed twice`,
        });
      seen.add(entry.name);
    }
  });
