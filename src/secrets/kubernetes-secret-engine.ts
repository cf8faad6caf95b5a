// `k8s` engine: `encrypted:k8s!n:<secret>!k:<key>` and `encryptedFile:k8s!n:<secret>!k:<key>!ns:<namespace>`
// read one key of a Kubernetes Secret, the original product's shape for this engine. Without `ns:`
// the Secret is looked up where the agent itself runs (see kubernetes-secret-access.ts). How the
// Secret is fetched is passed in, so the engine only decides what each answer means.
import type { SecretEngine } from './secret-engine.ts';
import { SecretResolutionError } from './secret-engine.ts';

/** What the engine needs from a cluster; `kubernetes-secret-access.ts` has the real one. */
export interface KubernetesSecretAccess {
  /** The namespace used when a reference has no `ns:`. */
  defaultNamespace(): Promise<string>;
  /** The Secret's `data` (base64 values by key). */
  readSecret(namespace: string, name: string): Promise<KubernetesSecretRead>;
}

export type KubernetesSecretRead =
  | { found: true; data: Record<string, string> }
  | { found: false; reason: 'missing' | 'forbidden' | 'unreachable'; detail: string };

export function kubernetesSecretEngine(access: KubernetesSecretAccess): SecretEngine {
  return {
    name: 'k8s',
    params: {
      n: { description: 'name of the Kubernetes Secret', required: true },
      k: { description: 'key in the Secret’s data', required: true },
      ns: {
        description: 'namespace of the Secret; the agent’s own namespace when absent',
        required: false,
      },
    },
    async resolve(params) {
      const name = params.n ?? '';
      const key = params.k ?? '';
      const namespace = params.ns || (await access.defaultNamespace());
      const where = `Kubernetes Secret ${namespace}/${name}`;
      const read = await access.readSecret(namespace, name);
      if (!read.found) {
        if (read.reason === 'missing')
          throw new SecretResolutionError('SECRET_NOT_FOUND', `${where} does not exist`);
        if (read.reason === 'forbidden') {
          throw new SecretResolutionError(
            'SECRET_FORBIDDEN',
            `${where} may not be read by the agent: ${read.detail}`,
          );
        }
        throw new SecretResolutionError('SECRET_UNREACHABLE', `cannot read ${where}: ${read.detail}`);
      }
      const encoded = read.data[key];
      if (encoded === undefined) {
        // Key names are not secret and saying which exist fixes a typo at once.
        const keys = Object.keys(read.data).sort().join(', ') || 'none';
        throw new SecretResolutionError(
          'SECRET_KEY_MISSING',
          `${where} has no key '${key}' (its keys: ${keys})`,
        );
      }
      return Buffer.from(encoded, 'base64').toString('utf8');
    },
  };
}
