// The `accounts` of cloudctl's config file checked in full, as the credentials API checks a POST body,
// each problem placed at its line: `config validate`, `config print` and `serve` all run it, so a file
// that validates also starts.
import { resolve } from 'node:path';
import { type ConfigIssue, makeIssue } from '../../lib/config-issue.ts';
import type { LoadedConfig } from '../config/index.ts';
import { type CredentialsDefinition, checkConfigAccounts } from '../credentials/index.ts';

export interface ConfigAccounts {
  /** The config file, absolute: the 409 of a write over the API names it. */
  file: string;
  definitions: CredentialsDefinition[];
}

export function configAccounts(
  loaded: LoadedConfig,
): { ok: true; accounts: ConfigAccounts } | { ok: false; issues: ConfigIssue[] } {
  const checked = checkConfigAccounts(loaded.config.accounts);
  if (checked.ok)
    return { ok: true, accounts: { file: resolve(loaded.file), definitions: checked.definitions } };
  const issues = checked.problems.map((p) =>
    makeIssue('error', loaded.file, loaded.locateValue(p.path), p.path, p.message),
  );
  return { ok: false, issues };
}
