// Secret references (`encrypted:<engine>!k:v!…`, `encryptedFile:…`), the engines that resolve them
// (`file`, `env`, `k8s`, `vault`), their `secrets.store.*` settings, and resolution over a whole
// config value. Both programs resolve references with these, so a reference means the same on both
// sides; neither program's code lives here. Other folders import from here only.
export { builtinEngines } from './builtin-engines.ts';
export { envEngine } from './env-engine.ts';
export { kubernetesSecretAccess } from './kubernetes-secret-access.ts';
export { kubernetesSecretEngine } from './kubernetes-secret-engine.ts';
export { resolveSecrets } from './resolve-secrets.ts';
export type { SecretEngine, SecretErrorCode } from './secret-engine.ts';
export { SECRET_ERRORS, SecretResolutionError } from './secret-engine.ts';
export { isSecretReference, parseSecretReference } from './secret-reference.ts';
export { secretValue } from './secret-value.ts';
export { secretsSchema } from './secrets-store.ts';
export { vaultClient } from './vault-client.ts';
