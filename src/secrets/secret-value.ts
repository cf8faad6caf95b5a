// One `encrypted:` reference resolved to its value with a given set of engines: what a setting outside
// the config file needs (a webhook header on cloudctl's side, or on the agent's when the agent sends
// the request). Errors name the reference's engine and parameters, never a value.
import { checkParams, type SecretEngine, SecretResolutionError } from './secret-engine.ts';
import { parseSecretReference } from './secret-reference.ts';

export async function secretValue(
  reference: string,
  engines: ReadonlyArray<SecretEngine>,
  /** Who resolves (`cloudctl`, `the agent`), for the message naming the engines it has. */
  resolver: string,
): Promise<string> {
  const parsed = parseSecretReference(reference);
  if (typeof parsed === 'string')
    throw new SecretResolutionError('SECRET_ENGINE_SETTINGS', `invalid secret reference: ${parsed}`);
  if (parsed.form !== 'value')
    throw new SecretResolutionError('SECRET_ENGINE_SETTINGS', 'expected encrypted:…, not encryptedFile:…');
  const engine = engines.find((e) => e.name === parsed.engine);
  if (engine === undefined)
    throw new SecretResolutionError(
      'SECRET_ENGINE_SETTINGS',
      `unknown secrets engine '${parsed.engine}'; ${resolver} resolves ${engines.map((e) => e.name).join(', ')}`,
    );
  if (engine.unavailable !== undefined)
    throw new SecretResolutionError('SECRET_ENGINE_SETTINGS', engine.unavailable);
  const problem = checkParams(engine, parsed.params);
  if (problem !== undefined) throw new SecretResolutionError('SECRET_ENGINE_SETTINGS', problem);
  return engine.resolve(parsed.params);
}
