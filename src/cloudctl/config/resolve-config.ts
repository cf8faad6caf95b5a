// At start: every secret reference of the loaded config fetched through its engine, and the config
// checked again with the values in place (a reference to something that is not a postgres:// URL is
// refused as the value would be, without quoting it). A reference that cannot be resolved is an error
// at its line, naming the engine and the reference; the secret is in no message.
import { dirname, resolve } from 'node:path';
import { type ConfigIssue, makeIssue } from '../../lib/config-issue.ts';
import { formatKeyPath, type KeyPath, type SourcePosition } from '../../lib/yaml-source.ts';
import { resolveSecrets, type SecretEngine } from '../../secrets/index.ts';
import { check, withAbsolutePaths } from './config-check.ts';
import { referenceProblem } from './config-secrets.ts';
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

export async function resolveConfig(loaded: LoadedConfig): Promise<ResolvedConfig | FailedConfig> {
  const { file, locate } = loaded;
  const resolved = await resolveSecrets(loaded.raw, loaded.secretEngines, { fetch: true });
  const referenceAt = new Map(loaded.secretReferences.map((r) => [formatKeyPath(r.path), r.reference]));
  const issues: ConfigIssue[] = resolved.issues.map((problem) =>
    makeIssue(
      'error',
      file,
      locate(problem.path),
      problem.path,
      referenceProblem(referenceAt.get(formatKeyPath(problem.path)) ?? '', problem.message),
    ),
  );
  const checked = issues.length > 0 ? undefined : check(resolved.value, new Set(referenceAt.keys()));
  if (checked !== undefined && !checked.ok)
    for (const f of checked.findings) {
      const reference = referenceAt.get(formatKeyPath(f.path));
      const message = reference === undefined ? f.message : `${reference}: ${f.message}`;
      issues.push(makeIssue('error', file, locate(f.path), f.path, message));
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
