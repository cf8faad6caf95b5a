// At start, every file a setting names must be readable: failing then, at the setting's location in
// the config file, beats failing later inside a TLS handshake or a kubeconfig load. `config validate`
// does not check files, since it often runs where they are not mounted (CI, a laptop).
import { access, constants } from 'node:fs/promises';
import { type ConfigIssue, makeIssue } from './config-issue.ts';
import { errorCode, isRecord } from './is-record.ts';
import { patternOf } from './schema-walk.ts';
import type { KeyPath, SourcePosition } from './yaml-source.ts';

function fileSettings(
  value: unknown,
  path: KeyPath,
  filePatterns: ReadonlySet<string>,
  out: Array<[KeyPath, string]>,
) {
  if (typeof value === 'string' && filePatterns.has(patternOf(path))) out.push([path, value]);
  else if (Array.isArray(value))
    for (const [i, item] of value.entries()) fileSettings(item, [...path, i], filePatterns, out);
  else if (isRecord(value))
    for (const [k, v] of Object.entries(value)) fileSettings(v, [...path, k], filePatterns, out);
}

/**
 * An error for each setting of `config` whose pattern is in `filePatterns` (SchemaIndex.filePaths)
 * and whose file cannot be read; `locate` places it in `file`.
 */
export async function unreadableFiles(
  config: unknown,
  filePatterns: ReadonlySet<string>,
  file: string,
  locate: (path: KeyPath) => SourcePosition,
): Promise<ConfigIssue[]> {
  const found: Array<[KeyPath, string]> = [];
  fileSettings(config, [], filePatterns, found);
  const issues: ConfigIssue[] = [];
  for (const [path, named] of found) {
    try {
      await access(named, constants.R_OK);
    } catch (error) {
      issues.push(makeIssue('error', file, locate(path), path, `cannot read ${named}: ${errorCode(error)}`));
    }
  }
  return issues;
}
