// cloudctl's configuration file, as one zod schema built from a schema per concept: the single
// source of its types, defaults, checks and generated reference (docs/cloudctl-configuration.md).
import { z } from 'zod';
import { secretsSchema } from '../../../secrets/index.ts';
import { accountsSchema } from './accounts.ts';
import { agentRetirementSchema } from './agent-retirement.ts';
import { agentsSchema } from './agents.ts';
import { analysisSchema } from './analysis.ts';
import { authSchema } from './auth.ts';
import { databaseSchema } from './database.ts';
import { grpcSchema } from './grpc.ts';
import { httpSchema } from './http.ts';
import { loggingSchema } from './logging.ts';
import { oauthSchema } from './oauth.ts';
import { operationsSchema } from './operations.ts';
import { plansSchema } from './plans.ts';
import { usersSchema } from './users.ts';
import { watchSchema } from './watch.ts';

export const cloudctlConfigSchema = z.strictObject({
  grpc: grpcSchema.prefault({}),
  http: httpSchema.prefault({}),
  users: usersSchema,
  auth: authSchema.prefault({}),
  agents: agentsSchema,
  agentRetirement: agentRetirementSchema.prefault({}),
  accounts: accountsSchema,
  database: databaseSchema.prefault({}),
  operations: operationsSchema.prefault({}),
  plans: plansSchema.prefault({}),
  analysis: analysisSchema.prefault({}),
  oauth: oauthSchema.prefault({}),
  watch: watchSchema.prefault({}),
  logging: loggingSchema.prefault({}),
  secrets: secretsSchema('strict').describe(
    'engines that resolve `encrypted:` and `encryptedFile:` references in this file and in webhook headers',
  ),
});

export type CloudctlConfig = z.infer<typeof cloudctlConfigSchema>;
