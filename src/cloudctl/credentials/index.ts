// Credentials: accounts defined in cloudctl (the dynamic accounts' definitions), stored with their
// history, and the credentials API that reads every account and writes cloudctl's own.
export {
  type AccountChange,
  type AccountProblem,
  checkConfigAccounts,
  syncConfigAccounts,
} from './config-file-accounts.ts';
export { credentialAccounts } from './credential-accounts.ts';
export {
  CredentialStore,
  type CredentialsRevision,
  type CredentialsWrite,
  type StoredCredentials,
} from './credential-store.ts';
export {
  type CredentialTables,
  credentialsConfigFileMigration,
  credentialsMigration,
} from './credential-tables.ts';
export { type CredentialsDefinition, credentialsDefinitionSchema } from './credentials-definition.ts';
export {
  type CredentialsFeature,
  type CredentialsFeatureDeps,
  credentialsFeature,
} from './credentials-feature.ts';
