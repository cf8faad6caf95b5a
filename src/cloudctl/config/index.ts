// cloudctl's configuration: the schema, the loader with located errors, the resolution of its secret
// references at start, and the effective-config printer. Other folders import from here only.

export { secretEngines } from './config-secrets.ts';
export { hidePassword, printEffectiveConfig } from './effective-config.ts';
export {
  checkReferencedFiles,
  type FailedConfig,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
  parseConfig,
} from './load-config.ts';
export { type ResolvedConfig, resolveConfig } from './resolve-config.ts';
export { type AgentEntry, agentIdSchema } from './schema/agents.ts';
export { BUILTIN_PROVIDER_NAME, type PrometheusProvider } from './schema/analysis.ts';
export { type CloudctlConfig, cloudctlConfigSchema } from './schema/cloudctl-config.ts';
export type { TlsSettings } from './schema/grpc.ts';
export type { OidcSettings } from './schema/oidc.ts';
export { roleSchema } from './schema/roles.ts';
export { TOKEN_HASH } from './schema/token-hash.ts';
export type { UserEntry } from './schema/users.ts';
export { cloudctlSchemaIndex } from './schema-index.ts';
