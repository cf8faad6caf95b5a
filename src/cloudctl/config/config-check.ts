// The schema check of cloudctl's config, before its problems are placed in a file: one finding per
// problem (an unknown key at the key, anything else at its value), and the checked config with every
// file path made absolute. Shared by the loader and by the start-time resolution of secrets.
import { isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { describeFound, describeZodIssue } from '../../lib/config-issue.ts';
import { isRecord } from '../../lib/is-record.ts';
import { didYouMean, suggestKey } from '../../lib/key-suggestion.ts';
import { patternOf } from '../../lib/schema-walk.ts';
import { formatKeyPath, type KeyPath } from '../../lib/yaml-source.ts';
import { isSecretReference } from '../../secrets/index.ts';
import { type CloudctlConfig, cloudctlConfigSchema } from './schema/cloudctl-config.ts';
import { DEFAULT_DATA_DIR } from './schema/database.ts';
import { cloudctlSchemaIndex } from './schema-index.ts';

/** A problem before it is located: an unknown key is shown at the key, anything else at its value. */
export interface Finding {
  path: KeyPath;
  at: 'key' | 'value';
  message: string;
}

export type Checked = { ok: true; config: CloudctlConfig } | { ok: false; findings: Finding[] };

function findingsOf(issue: z.core.$ZodIssue, secretValues: ReadonlySet<string>): Finding[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  // A value that came from a secret reference is never quoted: zod's own message says what is wrong.
  if (secretValues.has(formatKeyPath(path)))
    return [{ path, at: 'value', message: `the secret's value is invalid here: ${issue.message}` }];
  if (issue.code !== 'unrecognized_keys') return [{ path, at: 'value', message: describeZodIssue(issue) }];
  // Every map in the schema is strict, so zod names each unknown key; one finding per key, at the key.
  const parent = patternOf(path);
  return issue.keys.map((key) => ({
    path: [...path, key],
    at: 'key',
    message: `unknown key '${key}'${didYouMean(suggestKey(key, parent, cloudctlSchemaIndex()))}`,
  }));
}

/**
 * Checks a config value against the schema. `secretValues` lists the key paths (formatted) whose
 * value was resolved from a reference: their problems are told without the value.
 */
export function check(value: unknown, secretValues: ReadonlySet<string> = new Set()): Checked {
  const raw = value ?? {};
  if (!isRecord(raw))
    return {
      ok: false,
      findings: [
        { path: [], at: 'value', message: `expected a map of settings, found ${describeFound(raw)}` },
      ],
    };
  const parsed = cloudctlConfigSchema.safeParse(raw, { reportInput: true });
  if (parsed.success) return { ok: true, config: parsed.data };
  return { ok: false, findings: parsed.error.issues.flatMap((i) => findingsOf(i, secretValues)) };
}

/** A path made absolute against `base`; a reference stays as it is until it is resolved. */
function absolute(base: string, path: string): string {
  return isAbsolute(path) || path.startsWith('memory://') || isSecretReference(path)
    ? path
    : resolve(base, path);
}

/** The config with every file path absolute, and the default data directory when no URL is set. */
export function withAbsolutePaths(config: CloudctlConfig, base: string): CloudctlConfig {
  const { grpc, http, database } = config;
  return {
    ...config,
    grpc: {
      ...grpc,
      tls:
        grpc.tls === undefined
          ? undefined
          : {
              certFile: absolute(base, grpc.tls.certFile),
              keyFile: absolute(base, grpc.tls.keyFile),
              clientCaFile:
                grpc.tls.clientCaFile === undefined ? undefined : absolute(base, grpc.tls.clientCaFile),
            },
    },
    http: {
      ...http,
      tls:
        http.tls === undefined
          ? undefined
          : { certFile: absolute(base, http.tls.certFile), keyFile: absolute(base, http.tls.keyFile) },
    },
    database:
      database.url !== undefined
        ? database
        : database.urlFile !== undefined
          ? { ...database, urlFile: absolute(base, database.urlFile) }
          : { ...database, dataDir: absolute(base, database.dataDir ?? DEFAULT_DATA_DIR) },
  };
}
