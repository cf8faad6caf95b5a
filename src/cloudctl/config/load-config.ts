import { dirname, isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { type ConfigIssue, describeFound, describeZodIssue, makeIssue } from '../../lib/config-issue.ts';
import { isRecord } from '../../lib/is-record.ts';
import { didYouMean, suggestKey } from '../../lib/key-suggestion.ts';
import { unreadableFiles } from '../../lib/readable-files.ts';
import { patternOf } from '../../lib/schema-walk.ts';
import { readYamlFile } from '../../lib/yaml-file.ts';
import { formatKeyPath, type KeyPath, type SourcePosition } from '../../lib/yaml-source.ts';
import { CloudctlError } from '../errors.ts';
import { type CloudctlConfig, cloudctlConfigSchema } from './schema/cloudctl-config.ts';
import { DEFAULT_DATA_DIR } from './schema/database.ts';
import { cloudctlSchemaIndex } from './schema-index.ts';

export interface LoadedConfig {
  ok: true;
  file: string;
  config: CloudctlConfig;
  /** Where a key path sits in the file, for problems found after loading. */
  locate(path: KeyPath): SourcePosition;
}

export interface FailedConfig {
  ok: false;
  file: string;
  /** Every problem of the file, in file order; all are errors. */
  issues: ConfigIssue[];
}

/** A problem before it is located: an unknown key is shown at the key, anything else at its value. */
interface Finding {
  path: KeyPath;
  at: 'key' | 'value';
  message: string;
}

type Checked = { ok: true; config: CloudctlConfig } | { ok: false; findings: Finding[] };

function findingsOf(issue: z.core.$ZodIssue): Finding[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  if (issue.code !== 'unrecognized_keys') return [{ path, at: 'value', message: describeZodIssue(issue) }];
  // Every map in the schema is strict, so zod names each unknown key; one finding per key, at the key.
  const parent = patternOf(path);
  return issue.keys.map((key) => ({
    path: [...path, key],
    at: 'key',
    message: `unknown key '${key}'${didYouMean(suggestKey(key, parent, cloudctlSchemaIndex()))}`,
  }));
}

function check(value: unknown): Checked {
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
  return { ok: false, findings: parsed.error.issues.flatMap(findingsOf) };
}

function absolute(base: string, path: string): string {
  return isAbsolute(path) || path.startsWith('memory://') ? path : resolve(base, path);
}

/** The config with every file path absolute, and the default data directory when no URL is set. */
function withAbsolutePaths(config: CloudctlConfig, base: string): CloudctlConfig {
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

/**
 * Validates an already parsed config object (tests, benchmarks, the demo); `base` anchors relative
 * paths. Throws CONFIG_INVALID with one `source: error: key.path: message` line per problem.
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

export async function loadConfig(file: string): Promise<LoadedConfig | FailedConfig> {
  const fail = (issues: ConfigIssue[]): FailedConfig => ({ ok: false, file, issues });
  const read = await readYamlFile(file);
  if (!read.ok) return fail([read.issue]);
  const source = read.value;
  const keyAt = (path: KeyPath) => source.keyAt(path) ?? source.valueAt(path);
  const checked = check(source.value);
  if (!checked.ok) {
    const issues = checked.findings.map((f) =>
      makeIssue('error', file, f.at === 'key' ? keyAt(f.path) : source.valueAt(f.path), f.path, f.message),
    );
    issues.sort((a, b) => a.line - b.line || a.column - b.column);
    return fail(issues);
  }
  return { ok: true, file, config: withAbsolutePaths(checked.config, dirname(resolve(file))), locate: keyAt };
}

/** At `serve`: an error, at the setting, for each file the config names that cannot be read. */
export function checkReferencedFiles(loaded: LoadedConfig): Promise<ConfigIssue[]> {
  return unreadableFiles(loaded.config, cloudctlSchemaIndex().filePaths, loaded.file, loaded.locate);
}
