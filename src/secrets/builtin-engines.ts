// The engines every config gets: `file`, `env`, `k8s` and `vault`, built from `secrets.store` and the
// agent's environment. Built before the file is resolved, because they are what resolves it.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { envEngine } from './env-engine.ts';
import { fileEngine } from './file-engine.ts';
import { kubernetesSecretAccess } from './kubernetes-secret-access.ts';
import { kubernetesSecretEngine } from './kubernetes-secret-engine.ts';
import type { SecretEngine } from './secret-engine.ts';
import { checkParams, SecretResolutionError } from './secret-engine.ts';
import { isSecretReference, parseSecretReference } from './secret-reference.ts';
import type { secretsSchema } from './secrets-store.ts';
import { vaultClient } from './vault-client.ts';
import { vaultEngine } from './vault-engine.ts';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export interface BuiltinEngineOptions {
  store: z.infer<ReturnType<typeof secretsSchema>>['store'];
  /** The config file's directory: `file` paths resolve against it unless `baseDir` says otherwise. */
  configDir: string;
  env: NodeJS.ProcessEnv;
  /** Prefix of the pod's service account files; '' or undefined is the real `/var/run/secrets/...`. */
  serviceAccountRoot?: string;
  /** `orchestrator.noProxy`, which the `k8s` engine honours as accounts do. */
  noProxy?: boolean;
  fetch?: typeof globalThis.fetch;
}

/** Resolves a setting that is itself a reference to one of `engines` (the Vault token). */
async function settingValue(value: string, engines: SecretEngine[], key: string): Promise<string> {
  if (!isSecretReference(value)) return value;
  const parsed = parseSecretReference(value);
  const engine = typeof parsed === 'string' ? undefined : engines.find((e) => e.name === parsed.engine);
  if (typeof parsed === 'string' || engine === undefined || parsed.form !== 'value') {
    throw new SecretResolutionError(
      'SECRET_ENGINE_SETTINGS',
      `${key} must be a token or an encrypted: reference to the file, env or k8s engine`,
    );
  }
  const problem = checkParams(engine, parsed.params);
  if (problem !== undefined) throw new SecretResolutionError('SECRET_ENGINE_SETTINGS', `${key}: ${problem}`);
  return engine.resolve(parsed.params);
}

export function builtinEngines(options: BuiltinEngineOptions): SecretEngine[] {
  const { store, env } = options;
  const root = options.serviceAccountRoot ?? '';
  const k8sAccess = kubernetesSecretAccess({
    env,
    serviceAccountRoot: root,
    noProxy: options.noProxy ?? false,
  });
  const basic = [
    fileEngine(resolve(options.configDir, store.file.baseDir ?? '.')),
    envEngine(env, store.env.prefix),
    kubernetesSecretEngine(k8sAccess),
  ];
  const vault = store.vault;
  // Resolved once: a token kept in a Secret is not fetched again for every reference.
  let token: Promise<string | undefined> | undefined;
  const client = vault.enabled
    ? vaultClient(vault, {
        fetch: options.fetch ?? globalThis.fetch,
        token: () => {
          token ??=
            vault.token === undefined
              ? Promise.resolve(env.VAULT_TOKEN)
              : settingValue(vault.token, basic, 'secrets.store.vault.token');
          return token;
        },
        serviceAccountToken: async () => {
          const file = `${root}${SERVICE_ACCOUNT_TOKEN}`;
          try {
            return (await readFile(file, 'utf8')).trim();
          } catch {
            throw new SecretResolutionError(
              'SECRET_ENGINE_SETTINGS',
              `Vault authMethod KUBERNETES needs the pod's service account token, and ${file} is unreadable`,
            );
          }
        },
      })
    : undefined;
  return [...basic, vaultEngine(client)];
}
