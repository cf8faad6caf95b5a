// `env` engine: `encrypted:env!n:<NAME>` reads an environment variable (with `secrets.store.env.prefix`
// in front of the name). The environment is passed in so tests and callers control it.
import type { SecretEngine } from './secret-engine.ts';
import { SecretResolutionError } from './secret-engine.ts';

export function envEngine(env: NodeJS.ProcessEnv, prefix: string): SecretEngine {
  return {
    name: 'env',
    params: { n: { description: 'name of the environment variable', required: true } },
    async resolve(params) {
      const name = prefix + (params.n ?? '');
      const value = env[name];
      if (value === undefined || value === '') {
        throw new SecretResolutionError('SECRET_NOT_FOUND', `environment variable ${name} is not set`);
      }
      return value;
    },
  };
}
