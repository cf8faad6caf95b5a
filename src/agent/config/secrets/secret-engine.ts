// The interface every secrets engine implements, and the error they throw. Messages never carry a
// secret value: they name the reference's parameters (a file path, a variable name) instead.

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

export class SecretResolutionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretResolutionError';
  }
}

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
