// The interface every secrets engine implements, and the error they throw. Messages never carry a
// secret value: they name the reference's parameters (a file path, a variable name) instead.
import { CodedError } from '../lib/coded-error.ts';

export interface SecretParam {
  description: string;
  required: boolean;
}

export interface SecretEngine {
  readonly name: string;
  readonly params: Record<string, SecretParam>;
  /** Why the engine cannot be used as configured (say, switched off); reported without fetching. */
  readonly unavailable?: string;
  /** Returns the secret value. */
  resolve(params: Record<string, string>): Promise<string>;
  /**
   * For `encryptedFile:` references: a path to a file already holding exactly the secret, or
   * undefined, and the caller writes the value to a private temporary file.
   */
  existingFile?(params: Record<string, string>): string | undefined;
}

/** Why a reference could not be resolved, coded in one place so callers and logs can tell them apart. */
export const SECRET_ERRORS = {
  SECRET_NOT_FOUND: 'the file, variable, Kubernetes Secret or Vault path a reference names does not exist',
  SECRET_KEY_MISSING: 'the secret exists but has no value under the reference’s key',
  SECRET_FORBIDDEN: 'the agent may not read it: RBAC, a Vault policy, or a refused Vault login',
  SECRET_UNREACHABLE: 'the server holding it could not be reached or did not answer in time',
  SECRET_ENGINE_SETTINGS: 'the engine lacks something it needs: on/off, a token, a namespace, credentials',
} as const;

export type SecretErrorCode = keyof typeof SECRET_ERRORS;

export class SecretResolutionError extends CodedError<SecretErrorCode> {}

/** Checks a reference's parameters against the engine's, without fetching anything. */
export function checkParams(engine: SecretEngine, params: Record<string, string>): string | undefined {
  for (const [key, spec] of Object.entries(engine.params)) {
    if (spec.required && (params[key] === undefined || params[key] === '')) {
      return `the ${engine.name} engine needs '${key}:' (${spec.description}), for example encrypted:${engine.name}!${key}:…`;
    }
  }
  const unknown = Object.keys(params).filter((key) => !(key in engine.params));
  if (unknown.length > 0) {
    const known = Object.keys(engine.params).join(', ');
    return `the ${engine.name} engine does not take ${unknown.map((k) => `'${k}:'`).join(', ')}; it takes ${known}`;
  }
  return undefined;
}
