// cloudctl's configuration: schema and loader.
export { loadConfig, parseConfig } from './load-config.ts';
export {
  type AgentEntry,
  type CloudctlConfig,
  cloudctlConfigSchema,
  type TlsSettings,
  TOKEN_HASH,
} from './schema.ts';
