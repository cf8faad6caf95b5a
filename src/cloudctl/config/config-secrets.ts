// Secret references in cloudctl's config file: the engines that resolve them (the agent's set, from
// `src/secrets`, configured by the file's own `secrets.store`), and how a reference's problem is told.
// References are checked when the file loads (engine known, parameters right: `config validate`
// catches a typo) and fetched only at start; a problem names the engine and the reference, which say
// where the secret lives, never the secret.
import { dirname } from 'node:path';
import { isRecord } from '../../lib/is-record.ts';
import {
  builtinEngines,
  parseSecretReference,
  type SecretEngine,
  secretsSchema,
} from '../../secrets/index.ts';
import type { CloudctlConfig } from './schema/cloudctl-config.ts';

/**
 * The built-in engines with the file's `secrets.store` settings. They are needed before the file is
 * checked; if the settings are malformed, the check reports it and the engines take their defaults.
 */
export function configEngines(raw: unknown, file: string, env: NodeJS.ProcessEnv): SecretEngine[] {
  const settings = secretsSchema('strict').safeParse(isRecord(raw) ? raw.secrets : undefined);
  return secretEngines(settings.success ? settings.data : secretsSchema('strict').parse(undefined), {
    configDir: dirname(file),
    env,
  });
}

/**
 * The engines for `secrets` settings: what a cloudctl started from an already parsed config uses
 * (tests, the demo), relative `file` paths resolving against `configDir`.
 */
export function secretEngines(
  secrets: CloudctlConfig['secrets'],
  options: { configDir: string; env: NodeJS.ProcessEnv },
): SecretEngine[] {
  return builtinEngines({ store: secrets.store, configDir: options.configDir, env: options.env });
}

/** The message for a reference that cannot be checked or resolved: the engine, the reference, why. */
export function referenceProblem(reference: string, message: string): string {
  const parsed = parseSecretReference(reference);
  const engine = typeof parsed === 'string' ? 'secret reference' : `${parsed.engine} engine`;
  return `${engine}: cannot resolve ${reference}: ${message}`;
}

/**
 * The file's value without `accounts`: their references are the agent's to resolve (an account's
 * kubeconfig is read where the account is served), so cloudctl neither checks nor fetches them.
 */
export function withoutAccounts(raw: unknown): unknown {
  if (!isRecord(raw) || !('accounts' in raw)) return raw;
  const { accounts: _accounts, ...rest } = raw;
  return rest;
}

/** `resolved` with the file's `accounts` back, as written. */
export function withAccountsOf(raw: unknown, resolved: unknown): unknown {
  return isRecord(raw) && 'accounts' in raw && isRecord(resolved)
    ? { ...resolved, accounts: raw.accounts }
    : resolved;
}
