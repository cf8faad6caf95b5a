// cloudctl's configuration: schema and loader.
export { loadConfig, parseConfig } from './load-config.ts';
export {
  type AgentEntry,
  type CloudctlConfig,
  cloudctlConfigSchema,
  roleSchema,
  type TlsSettings,
  TOKEN_HASH,
  type UserEntry,
} from './schema.ts';
