// `file` engine: `encrypted:file!f:<path>` reads the whole file (one trailing newline dropped);
// `!k:<key>` reads that key of a YAML or JSON map in the file. Relative paths resolve against
// `secrets.store.file.baseDir`, or the config file's directory.
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { load } from 'js-yaml';
import { errorCode, isRecord } from '../lib/is-record.ts';
import type { SecretEngine } from './secret-engine.ts';
import { SecretResolutionError } from './secret-engine.ts';

export function fileEngine(baseDir: string): SecretEngine {
  const pathOf = (params: Record<string, string>) => {
    const f = params.f ?? '';
    return isAbsolute(f) ? f : resolve(baseDir, f);
  };
  return {
    name: 'file',
    params: {
      f: { description: 'path of the file holding the secret', required: true },
      k: { description: 'key of the secret in a YAML or JSON map file', required: false },
    },
    async resolve(params) {
      const path = pathOf(params);
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        const code = errorCode(error);
        throw new SecretResolutionError(
          code === 'EACCES' || code === 'EPERM' ? 'SECRET_FORBIDDEN' : 'SECRET_NOT_FOUND',
          `cannot read secret file ${path}: ${code}`,
        );
      }
      if (params.k === undefined) return text.replace(/\r?\n$/, '');
      const map = load(text);
      const value = isRecord(map) ? map[params.k] : undefined;
      if (typeof value !== 'string') {
        throw new SecretResolutionError(
          'SECRET_KEY_MISSING',
          `secret file ${path} has no string value under key '${params.k}'`,
        );
      }
      return value;
    },
    // Without a key the file itself is what the setting needs, so no copy of the secret is made.
    existingFile: (params) => (params.k === undefined ? pathOf(params) : undefined),
  };
}
