// At start: every secret reference of the loaded config fetched through its engine, and the config
// checked again with the values in place (a reference to something that is not a postgres:// URL is
// refused as the value would be, without quoting it). A reference that cannot be resolved is an error
// at its line, naming the engine and the reference; the secret is in no message.
import { dirname, resolve } from 'node:path';
import { type ConfigIssue, makeIssue } from '../../lib/config-issue.ts';
import { isRecord } from '../../lib/is-record.ts';
import { formatKeyPath, type KeyPath, type SourcePosition } from '../../lib/yaml-source.ts';
import { isSecretReference, resolveSecrets, type SecretEngine } from '../../secrets/index.ts';
import { check, withAbsolutePaths } from './config-check.ts';
import { referenceProblem, withAccountsOf, withoutAccounts } from './config-secrets.ts';
import type { FailedConfig, LoadedConfig } from './load-config.ts';
import type { CloudctlConfig } from './schema/cloudctl-config.ts';

export interface ResolvedConfig {
  ok: true;
  file: string;
  /** The config with secret values in place: never print or log it. */
  config: CloudctlConfig;
  secretEngines: ReadonlyArray<SecretEngine>;
  locate(path: KeyPath): SourcePosition;
  /** Removes the private files written for `encryptedFile:` references. */
  dispose(): Promise<void>;
}

/** The value at `path`, or undefined where the path leads nowhere. */
function valueAt(root: unknown, path: KeyPath): unknown {
  let node = root;
  for (const part of path) {
    if (Array.isArray(node) && typeof part === 'number') node = node[part];
    else if (isRecord(node) && typeof part === 'string') node = node[part];
    else return undefined;
  }
  return node;
}

export async function resolveConfig(loaded: LoadedConfig): Promise<ResolvedConfig | FailedConfig> {
  const { file, locate, locateValue } = loaded;
  const resolved = await resolveSecrets(withoutAccounts(loaded.raw), loaded.secretEngines, { fetch: true });
  const referenceAt = new Map(loaded.secretReferences.map((r) => [formatKeyPath(r.path), r.reference]));
  const issues: ConfigIssue[] = resolved.issues.map((problem) =>
    makeIssue(
      'error',
      file,
      locateValue(problem.path),
      problem.path,
      referenceProblem(referenceAt.get(formatKeyPath(problem.path)) ?? '', problem.message),
    ),
  );
  // Unresolved references keep their text: look for nesting only once every one resolved.
  for (const { path, reference } of issues.length > 0 ? [] : loaded.secretReferences)
    if (isSecretReference(String(valueAt(resolved.value, path))))
      issues.push(
        makeIssue(
          'error',
          file,
          locateValue(path),
          path,
          `${reference}: its value is itself a secret reference; references do not nest`,
        ),
      );
  const checked =
    issues.length > 0
      ? undefined
      : check(withAccountsOf(loaded.raw, resolved.value), new Set(referenceAt.keys()));
  if (checked !== undefined && !checked.ok)
    for (const f of checked.findings) {
      const reference = referenceAt.get(formatKeyPath(f.path));
      const message = reference === undefined ? f.message : `${reference}: ${f.message}`;
      issues.push(
        makeIssue('error', file, f.at === 'key' ? locate(f.path) : locateValue(f.path), f.path, message),
      );
    }
  if (checked === undefined || !checked.ok) {
    await resolved.dispose();
    return { ok: false, file, issues };
  }
  return {
    ok: true,
    file,
    config: withAbsolutePaths(checked.config, dirname(resolve(file))),
    secretEngines: loaded.secretEngines,
    locate,
    dispose: resolved.dispose,
  };
}
