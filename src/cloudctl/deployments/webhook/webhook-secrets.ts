// Resolves the `encrypted:` references of webhook headers sent directly by cloudctl, with cloudctl's
// secret engines: the agent's set (`src/secrets`: file, env, k8s, vault), configured by cloudctl's own
// `secrets.store` section, so a reference means the same on both sides. A webhook sent by an agent
// (`remoteNetworkAgent`) carries the reference instead, and that agent resolves it with its engines.
import { type SecretEngine, secretValue } from '../../../secrets/index.ts';

export function webhookSecrets(engines: ReadonlyArray<SecretEngine>): (reference: string) => Promise<string> {
  return (reference) => secretValue(reference, engines, 'cloudctl');
}
