// `vault` engine: `encrypted:vault!e:<engine mount>!p:<path>!k:<key>` reads one key of a secret in a
// Vault (or OpenBao) KV version 2 engine, the original product's reference shape. How Vault is
// reached and logged in to is vault-client.ts's; `secrets.store.vault` configures it.
import type { SecretEngine } from './secret-engine.ts';
import { SecretResolutionError } from './secret-engine.ts';
import type { VaultClient } from './vault-client.ts';

/** The engine; `client` is undefined while `secrets.store.vault.enabled` is false. */
export function vaultEngine(client: VaultClient | undefined): SecretEngine {
  return {
    name: 'vault',
    params: {
      e: { description: 'mount path of the KV version 2 secrets engine, e.g. secret', required: true },
      p: { description: 'path of the secret in that engine', required: true },
      k: { description: 'key in the secret', required: true },
    },
    ...(client === undefined
      ? { unavailable: 'the vault engine is off: set secrets.store.vault.enabled: true and its url' }
      : {}),
    async resolve(params) {
      if (client === undefined)
        throw new SecretResolutionError('SECRET_ENGINE_SETTINGS', 'the vault engine is off');
      const mount = params.e ?? '';
      const path = params.p ?? '';
      const key = params.k ?? '';
      const read = await client.readKv2(mount, path);
      const where = `Vault secret ${mount}/${path}`;
      if (!read.found)
        throw new SecretResolutionError(
          'SECRET_NOT_FOUND',
          `${where} does not exist (or its latest version is deleted)`,
        );
      const value = read.data[key];
      if (value === undefined) {
        const keys = Object.keys(read.data).sort().join(', ') || 'none';
        throw new SecretResolutionError(
          'SECRET_KEY_MISSING',
          `${where} has no key '${key}' (its keys: ${keys})`,
        );
      }
      // KV values may be any JSON; a setting needs text, so non-strings are passed as JSON.
      return typeof value === 'string' ? value : JSON.stringify(value);
    },
  };
}
