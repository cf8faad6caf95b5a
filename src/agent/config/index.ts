// The agent's configuration: schemas per variant, the loader with located errors, and the
// effective-config printer. Secret references and engines are src/secrets' (cloudctl uses them too).
// Other folders import from here only.

export type { Permissions } from '../../contract/index.ts';
export type { ConfigIssue } from '../../lib/config-issue.ts';
export { formatIssue } from '../../lib/config-issue.ts';
export type { SettingInfo } from '../../lib/schema-walk.ts';
export type { AccountDefinition } from './account-definition.ts';
export { loadAccountDefinition } from './account-definition.ts';
export { checkReferencedFiles } from './check-files.ts';
export type { DynamicAccountSettings } from './dynamic-account-settings.ts';
export { dynamicAccountSettings } from './dynamic-account-settings.ts';
export { printEffectiveConfig, REDACTED, redactedConfig } from './effective-config.ts';
export type { FailedConfig, LoadConfigOptions, LoadedConfig } from './load-config.ts';
export { loadConfig, schemaIndexes } from './load-config.ts';
export { parseAccount } from './parse-account.ts';
export type {
  AccountConfig,
  AgentConfig,
  AgentConfigA,
  AgentConfigB,
  AgentConfigC,
} from './schema/agent-config.ts';
export { AGENT_CONFIG_SCHEMAS } from './schema/agent-config.ts';
export type { LogLevel } from './schema/logging.ts';
export { LOG_LEVELS } from './schema/logging.ts';
export type { Variant } from './schema/variant.ts';
export { VARIANTS } from './schema/variant.ts';
export type { BackoffPolicy } from './variant-settings.ts';
export {
  budgetEveryList,
  logContextFields,
  operationIdleMs,
  reconnectBackoff,
  serverSideApplySettings,
  watchRestartBackoff,
  watchStartGroups,
} from './variant-settings.ts';
