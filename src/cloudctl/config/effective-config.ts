// `config print`: the effective configuration as YAML, every default filled and every path absolute,
// with no secret in it. Secret references are shown as written (they say where a secret lives, not
// the secret: print never fetches them); a secret setting written in clear (`database.password`,
// `secrets.store.vault.token`) is shown as ***, and so is the password of `database.url`, in the user
// part or as a `password` parameter. Token hashes are shown: they are not secrets.
import { dump } from 'js-yaml';
import { isRecord } from '../../lib/is-record.ts';
import { patternOf } from '../../lib/schema-walk.ts';
import type { KeyPath } from '../../lib/yaml-source.ts';
import { isSecretReference } from '../../secrets/index.ts';
import type { CloudctlConfig } from './schema/cloudctl-config.ts';
import { cloudctlSchemaIndex } from './schema-index.ts';

export const HIDDEN_PASSWORD = '***';

/**
 * The URL with its password hidden. The user part ends at the last '@', so an unescaped '@' in a
 * password hides more of the URL rather than showing part of the password.
 */
export function hidePassword(url: string): string {
  return url
    .replace(/^([a-z]+:\/\/[^:@/]*:)(.*)@/is, `$1${HIDDEN_PASSWORD}@`)
    .replace(/([?&]password=)[^&#]*/gi, `$1${HIDDEN_PASSWORD}`);
}

function hidden(value: unknown, path: KeyPath, secretPatterns: ReadonlySet<string>): unknown {
  if (typeof value === 'string') {
    if (isSecretReference(value)) return value;
    if (secretPatterns.has(patternOf(path))) return HIDDEN_PASSWORD;
    return patternOf(path) === 'database.url' ? hidePassword(value) : value;
  }
  if (Array.isArray(value)) return value.map((item, i) => hidden(item, [...path, i], secretPatterns));
  if (isRecord(value))
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, hidden(v, [...path, k], secretPatterns)]),
    );
  return value;
}

/** `config` as printed: pass the loaded config, whose references are not resolved. */
export function printEffectiveConfig(config: CloudctlConfig): string {
  const shown = hidden(config, [], cloudctlSchemaIndex().secretPaths);
  return dump(shown, { lineWidth: 120, noRefs: true });
}
