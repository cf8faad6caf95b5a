// Where the database is, from `database.*` settings: a PostgreSQL server by URL (given, or read from
// a mounted Secret), with `database.password` when set, or embedded PGlite in a data directory (in memory without one).
import { readFileSync } from 'node:fs';
import type { CloudctlConfig } from './config/index.ts';
import { CloudctlError } from './errors.ts';
import type { DatabaseTarget } from './store/index.ts';

/** The URL in `database.urlFile` (a mounted Secret: one line, trailing whitespace ignored). */
function readDatabaseUrl(file: string): string {
  let url: string;
  try {
    url = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new CloudctlError('CONFIG_INVALID', `database.urlFile: cannot read ${file}: ${String(error)}`, {
      cause: error,
    });
  }
  // Never echo the content: it holds a password.
  if (!/^postgres(ql)?:\/\//.test(url))
    throw new CloudctlError('CONFIG_INVALID', `database.urlFile: ${file} does not hold a postgres:// URL`);
  return url;
}

/** `database.password` (resolved from its reference by now) in place of the URL's own password. */
function withPassword(url: string, password: string | undefined): string {
  if (password === undefined) return url;
  const parsed = new URL(url);
  // The userinfo of a URL is percent-encoded; pg decodes it back.
  parsed.password = encodeURIComponent(password);
  return parsed.href;
}

export function databaseTarget(database: CloudctlConfig['database']): DatabaseTarget {
  const { password } = database;
  if (database.url !== undefined) return { kind: 'postgres', url: withPassword(database.url, password) };
  if (database.urlFile !== undefined)
    return { kind: 'postgres', url: withPassword(readDatabaseUrl(database.urlFile), password) };
  return { kind: 'pglite', dataDir: database.dataDir ?? 'memory://' };
}
