// Secret references (`encrypted:<engine>!k:v!…`, `encryptedFile:…`), the engines that resolve them
// (`file`, `env`, `k8s`, `vault`), their `secrets.store.*` settings, and resolution over a whole
// config value. Both programs resolve references with these, so a reference means the same on both
// sides; neither program's code lives here. Other folders import from here only.
export type { BuiltinEngineOptions } from './builtin-engines.ts';
export { builtinEngines } from './builtin-engines.ts';
export { envEngine } from './env-engine.ts';
export { kubernetesSecretAccess } from './kubernetes-secret-access.ts';
export type { KubernetesSecretAccess, KubernetesSecretRead } from './kubernetes-secret-engine.ts';
export { kubernetesSecretEngine } from './kubernetes-secret-engine.ts';
export type { ResolvedSecrets, SecretIssue } from './resolve-secrets.ts';
export { resolveSecrets } from './resolve-secrets.ts';
export type { SecretEngine, SecretErrorCode, SecretParam } from './secret-engine.ts';
export { SECRET_ERRORS, SecretResolutionError } from './secret-engine.ts';
export type { SecretReference } from './secret-reference.ts';
export { isSecretReference, parseSecretReference } from './secret-reference.ts';
export { secretValue } from './secret-value.ts';
export type { VaultSettings } from './secrets-store.ts';
export { secretsSchema } from './secrets-store.ts';
export { vaultClient } from './vault-client.ts';
