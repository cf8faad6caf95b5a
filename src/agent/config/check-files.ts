// At `run`, every file a setting names must be readable: failing now, with the setting's location,
// beats failing later inside a TLS handshake or a kubeconfig load. `config validate` does not check
// files, since it often runs where they are not mounted (CI, a laptop).
import { access, constants } from 'node:fs/promises';
import { type ConfigIssue, makeIssue } from '../../lib/config-issue.ts';
import { errorCode, isRecord } from '../../lib/is-record.ts';
import { patternOf } from '../../lib/schema-walk.ts';
import type { KeyPath } from '../../lib/yaml-source.ts';
import { type LoadedConfig, schemaIndexes } from './load-config.ts';

function fileSettings(
  value: unknown,
  path: KeyPath,
  filePatterns: Set<string>,
  out: Array<[KeyPath, string]>,
) {
  if (typeof value === 'string' && filePatterns.has(patternOf(path))) out.push([path, value]);
  else if (Array.isArray(value))
    for (const [i, item] of value.entries()) fileSettings(item, [...path, i], filePatterns, out);
  else if (isRecord(value))
    for (const [k, v] of Object.entries(value)) fileSettings(v, [...path, k], filePatterns, out);
}

export async function checkReferencedFiles(loaded: LoadedConfig): Promise<ConfigIssue[]> {
  const found: Array<[KeyPath, string]> = [];
  fileSettings(loaded.config, [], schemaIndexes()[loaded.config.variant].filePaths, found);
  const issues: ConfigIssue[] = [];
  for (const [path, file] of found) {
    try {
      await access(file, constants.R_OK);
    } catch (error) {
      issues.push(
        makeIssue(
          'error',
          loaded.file,
          loaded.locate(path),
          path,
          `cannot read ${file}: ${errorCode(error)}`,
        ),
      );
    }
  }
  return issues;
}
