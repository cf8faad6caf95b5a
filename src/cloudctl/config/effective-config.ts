// `config print`: the effective configuration as YAML, every default filled and every path absolute.
// Token hashes are shown (they are not secrets); a database password is not: `database.url` is
// printed with its password, in the user part or as a `password` parameter, replaced by ***.
import { dump } from 'js-yaml';
import type { CloudctlConfig } from './schema/cloudctl-config.ts';

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

export function printEffectiveConfig(config: CloudctlConfig): string {
  const { url } = config.database;
  const shown =
    url === undefined ? config : { ...config, database: { ...config.database, url: hidePassword(url) } };
  return dump(shown, { lineWidth: 120, noRefs: true });
}
