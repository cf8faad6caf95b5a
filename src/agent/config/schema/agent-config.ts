// The whole agent configuration, one schema per variant, composed from the section builders so that
// each default and each variant difference is written exactly once.
import { z } from 'zod';
import { accountSchemaAC, accountSchemaB } from '../../../contract/index.ts';
import { setting } from '../../../lib/setting-meta.ts';
import { secretsSchema } from '../../../secrets/index.ts';
import { cloudctlShape, cloudctlShapeB, timeoutSecondsSchema } from './cloudctl.ts';
import { dynamicAccountsShapeB, dynamicAccountsShapeC } from './dynamic-accounts.ts';
import { loggingSchemaA, loggingSchemaB, loggingSchemaC } from './logging.ts';
import { orchestratorShape, orchestratorShapeB } from './orchestrator.ts';
import { pprofSchema, serverSchema, telemetrySchema } from './side-servers.ts';
import { tasksSchema } from './tasks.ts';
import type { Variant } from './variant.ts';

function commonShape<V extends Variant>(variant: V) {
  return {
    variant: setting(z.literal(variant).default(variant), {
      description: 'the settings table this file is written for',
      type: 'A \\| B \\| C',
    }),
    timeoutSeconds: timeoutSecondsSchema(),
    pprof: pprofSchema(),
    telemetry: telemetrySchema(),
    server: serverSchema(),
    secrets: secretsSchema(),
    tasks: tasksSchema(variant),
  };
}

export const agentConfigSchemaA = z.object({
  ...commonShape('A'),
  cloudctl: z.object(cloudctlShape('A')).prefault({}),
  orchestrator: z.object(orchestratorShape(accountSchemaAC())).prefault({}),
  logging: loggingSchemaA(),
});

export const agentConfigSchemaB = z.object({
  ...commonShape('B'),
  cloudctl: z.object({ ...cloudctlShape('B'), ...cloudctlShapeB() }).prefault({}),
  orchestrator: z.object({ ...orchestratorShape(accountSchemaB()), ...orchestratorShapeB() }).prefault({}),
  logging: loggingSchemaB(),
  ...dynamicAccountsShapeB(),
});

export const agentConfigSchemaC = z.object({
  ...commonShape('C'),
  cloudctl: z.object(cloudctlShape('C')).prefault({}),
  orchestrator: z.object(orchestratorShape(accountSchemaAC())).prefault({}),
  logging: loggingSchemaC(),
  ...dynamicAccountsShapeC(),
});

export const AGENT_CONFIG_SCHEMAS = {
  A: agentConfigSchemaA,
  B: agentConfigSchemaB,
  C: agentConfigSchemaC,
} as const;

export type AgentConfigA = z.infer<typeof agentConfigSchemaA>;
export type AgentConfigB = z.infer<typeof agentConfigSchemaB>;
export type AgentConfigC = z.infer<typeof agentConfigSchemaC>;
/** The effective configuration; narrow on `variant` to reach variant-only settings. */
export type AgentConfig = AgentConfigA | AgentConfigB | AgentConfigC;
export type AccountConfig = AgentConfig['orchestrator']['accounts'][number];
