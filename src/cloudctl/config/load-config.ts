// Loads cloudctl's config file: YAML with positions, the schema check, and the secret references'
// check, every problem placed at its line and column. References stay as written in the loaded
// config (what `config validate` and `config print` see); `resolveConfig` fetches them at start.
import { dirname, resolve } from 'node:path';
import { type ConfigIssue, makeIssue } from '../../lib/config-issue.ts';
import { unreadableFiles } from '../../lib/readable-files.ts';
import { readYamlFile } from '../../lib/yaml-file.ts';
import { formatKeyPath, type KeyPath, type SourcePosition } from '../../lib/yaml-source.ts';
import { resolveSecrets, type SecretEngine } from '../../secrets/index.ts';
import { CloudctlError } from '../errors.ts';
import { check, withAbsolutePaths } from './config-check.ts';
import { configEngines, referenceProblem, withoutAccounts } from './config-secrets.ts';
import type { CloudctlConfig } from './schema/cloudctl-config.ts';
import { cloudctlSchemaIndex } from './schema-index.ts';

export interface LoadedConfig {
  ok: true;
  file: string;
  /** The config with its secret references unresolved: safe to show. */
  config: CloudctlConfig;
  /** The file's value as read, for resolving its references at start. */
  raw: unknown;
  /** Key paths that hold a secret reference, with the reference (safe to show). */
  secretReferences: Array<{ path: KeyPath; reference: string }>;
  /** The engines the references resolve with; webhook headers use them too. */
  secretEngines: ReadonlyArray<SecretEngine>;
  /** Where a key path sits in the file, for problems found after loading. */
  locate(path: KeyPath): SourcePosition;
  /** Where a key path's value sits: problems of a value are shown there. */
  locateValue(path: KeyPath): SourcePosition;
}

export interface FailedConfig {
  ok: false;
  file: string;
  /** Every problem of the file, in file order; all are errors. */
  issues: ConfigIssue[];
}

export interface LoadConfigOptions {
  /** For the `env` engine and the `k8s` engine's kubeconfig lookup; default process.env. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Validates an already parsed config object (tests, benchmarks, the demo); `base` anchors relative
 * paths. Secret references are left as written. Throws CONFIG_INVALID with one
 * `source: error: key.path: message` line per problem.
 */
export function parseConfig(value: unknown, source: string, base: string): CloudctlConfig {
  const checked = check(value);
  if (!checked.ok) {
    const lines = checked.findings.map((f) => {
      const path = formatKeyPath(f.path);
      return `${source}: error: ${path === '' ? '' : `${path}: `}${f.message}`;
    });
    throw new CloudctlError('CONFIG_INVALID', lines.join('\n'));
  }
  return withAbsolutePaths(checked.config, base);
}

export async function loadConfig(
  file: string,
  options: LoadConfigOptions = {},
): Promise<LoadedConfig | FailedConfig> {
  const fail = (issues: ConfigIssue[]): FailedConfig => ({ ok: false, file, issues });
  const read = await readYamlFile(file);
  if (!read.ok) return fail([read.issue]);
  const source = read.value;
  const keyAt = (path: KeyPath) => source.keyAt(path) ?? source.valueAt(path);
  const engines = configEngines(source.value, file, options.env ?? process.env);
  const references = await resolveSecrets(withoutAccounts(source.value), engines, { fetch: false });
  const issues = references.issues.map((problem) => {
    const at = formatKeyPath(problem.path);
    const reference = references.references.find((r) => formatKeyPath(r.path) === at)?.reference ?? '';
    return makeIssue(
      'error',
      file,
      source.valueAt(problem.path),
      problem.path,
      referenceProblem(reference, problem.message),
    );
  });
  const checked = check(source.value);
  if (!checked.ok)
    for (const f of checked.findings)
      issues.push(
        makeIssue('error', file, f.at === 'key' ? keyAt(f.path) : source.valueAt(f.path), f.path, f.message),
      );
  if (!checked.ok || issues.length > 0) {
    issues.sort((a, b) => a.line - b.line || a.column - b.column);
    return fail(issues);
  }
  return {
    ok: true,
    file,
    config: withAbsolutePaths(checked.config, dirname(resolve(file))),
    raw: source.value,
    secretReferences: references.references,
    secretEngines: engines,
    locate: keyAt,
    locateValue: (path) => source.valueAt(path),
  };
}

/** At `serve`: an error, at the setting, for each file the config names that cannot be read. */
export function checkReferencedFiles(loaded: {
  file: string;
  config: CloudctlConfig;
  locate(path: KeyPath): SourcePosition;
}): Promise<ConfigIssue[]> {
  return unreadableFiles(loaded.config, cloudctlSchemaIndex().filePaths, loaded.file, loaded.locate);
}
