// Resolves the `encrypted:` references of webhook headers for cloudctl, with the agent's own engines
// (builtinEngines), so a reference means the same on both sides. cloudctl's config has no `secrets`
// section yet, so the engines run on their defaults (docs/decisions.md): `env` reads cloudctl's
// environment with no prefix, `file` resolves relative paths against cloudctl's working directory,
// `k8s` reads Secrets as cloudctl's own identity (its pod's service account, else the default
// kubeconfig). `vault` is left out: it needs a server address and credentials, which only a
// `secrets.store.vault` section could give.
import {
  builtinEngines,
  parseSecretReference,
  SecretResolutionError,
  secretsSchema,
  secretValue,
} from '../../../secrets/index.ts';

export interface WebhookSecretsOptions {
  /** cloudctl's environment, for the `env` engine (and the `k8s` engine's kubeconfig lookup). */
  env: NodeJS.ProcessEnv;
  /** Where relative `file` paths resolve: cloudctl's working directory. */
  workingDir: string;
}

/** Engines that need settings cloudctl's config cannot give yet. */
const NEEDS_SETTINGS = new Set(['vault']);

export function webhookSecrets(options: WebhookSecretsOptions): (reference: string) => Promise<string> {
  const { store } = secretsSchema().parse({});
  const engines = builtinEngines({ store, configDir: options.workingDir, env: options.env }).filter(
    (engine) => !NEEDS_SETTINGS.has(engine.name),
  );
  return async (reference) => {
    const parsed = parseSecretReference(reference);
    if (typeof parsed !== 'string' && NEEDS_SETTINGS.has(parsed.engine))
      throw new SecretResolutionError(
        'SECRET_ENGINE_SETTINGS',
        `the ${parsed.engine} engine needs settings cloudctl's config does not have yet; cloudctl resolves ${engines
          .map((e) => e.name)
          .join(', ')}`,
      );
    return secretValue(reference, engines, 'cloudctl');
  };
}
