// The agent's configuration: schemas per variant, the loader with located errors, secret engines,
// and the effective-config printer. Other folders import from here only.

export type { ConfigIssue } from '../../lib/config-issue.ts';
export { formatIssue } from '../../lib/config-issue.ts';
export type { SettingInfo } from '../../lib/schema-walk.ts';
export type { AccountDefinition } from './account-definition.ts';
export { loadAccountDefinition } from './account-definition.ts';
export { checkReferencedFiles } from './check-files.ts';
export { printEffectiveConfig, REDACTED, redactedConfig } from './effective-config.ts';
export type { FailedConfig, LoadConfigOptions, LoadedConfig } from './load-config.ts';
export { loadConfig, schemaIndexes } from './load-config.ts';
export { parseAccount } from './parse-account.ts';
export { accountSchemaAC, checkAccount } from './schema/account.ts';
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
export type { Permissions } from './schema/permissions.ts';
export type { Variant } from './schema/variant.ts';
export { VARIANTS } from './schema/variant.ts';
export type { SecretEngine, SecretErrorCode } from './secrets/secret-engine.ts';
export { SECRET_ERRORS, SecretResolutionError } from './secrets/secret-engine.ts';
export { parseSecretReference } from './secrets/secret-reference.ts';
export { secretValue } from './secrets/secret-value.ts';
