// Reads cloudctl's YAML config: parse, validate against the schema, and make the file paths it
// names absolute (relative to the config file), so nothing later depends on the working directory.
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { load, YAMLException } from 'js-yaml';
import { CloudctlError } from '../errors.ts';
import { type CloudctlConfig, cloudctlConfigSchema, DEFAULT_DATA_DIR } from './schema.ts';

function absolute(base: string, path: string): string {
  return isAbsolute(path) || path.startsWith('memory://') ? path : resolve(base, path);
}

/** Validates an already parsed config object; `base` anchors relative paths. */
export function parseConfig(value: unknown, source: string, base: string): CloudctlConfig {
  const parsed = cloudctlConfigSchema.safeParse(value ?? {});
  if (!parsed.success) {
    const lines = parsed.error.issues.map(
      (issue) => `${source}: ${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new CloudctlError('CONFIG_INVALID', lines.join('\n'));
  }
  const config = parsed.data;
  const tls = config.grpc.tls;
  return {
    ...config,
    grpc: {
      ...config.grpc,
      tls:
        tls === undefined
          ? undefined
          : {
              certFile: absolute(base, tls.certFile),
              keyFile: absolute(base, tls.keyFile),
              clientCaFile: tls.clientCaFile === undefined ? undefined : absolute(base, tls.clientCaFile),
            },
    },
    http: {
      ...config.http,
      tls:
        config.http.tls === undefined
          ? undefined
          : {
              certFile: absolute(base, config.http.tls.certFile),
              keyFile: absolute(base, config.http.tls.keyFile),
            },
    },
    database: { ...config.database, dataDir: absolute(base, config.database.dataDir ?? DEFAULT_DATA_DIR) },
  };
}

export async function loadConfig(file: string): Promise<CloudctlConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CloudctlError('CONFIG_INVALID', `${file}: cannot read: ${String(error)}`, { cause: error });
  }
  let value: unknown;
  try {
    value = load(text);
  } catch (error) {
    if (error instanceof YAMLException)
      throw new CloudctlError('CONFIG_INVALID', `${file}: ${error.message}`);
    throw error;
  }
  return parseConfig(value, file, dirname(resolve(file)));
}
