// Finds secret references in a raw config value and checks them; when asked, replaces each with its
// value (or, for `encryptedFile:`, a path). Returns where references were, so `config print` can show
// the reference instead of the value.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRecord } from '../lib/is-record.ts';
import type { KeyPath } from '../lib/yaml-source.ts';
import type { SecretEngine } from './secret-engine.ts';
import { checkParams, SecretResolutionError } from './secret-engine.ts';
import { isSecretReference, parseSecretReference } from './secret-reference.ts';

export interface SecretIssue {
  path: KeyPath;
  message: string;
}

export interface ResolvedSecrets {
  value: unknown;
  /** Key paths whose value came from a reference, with the reference text. */
  references: Array<{ path: KeyPath; reference: string }>;
  issues: SecretIssue[];
  /** Removes files written for `encryptedFile:` references. */
  dispose(): Promise<void>;
}

function collect(value: unknown, path: KeyPath, out: Array<{ path: KeyPath; reference: string }>) {
  if (typeof value === 'string' && isSecretReference(value)) out.push({ path, reference: value });
  else if (Array.isArray(value)) for (const [i, item] of value.entries()) collect(item, [...path, i], out);
  else if (isRecord(value)) for (const [k, v] of Object.entries(value)) collect(v, [...path, k], out);
}

function setAt(root: unknown, path: KeyPath, replacement: string) {
  let node = root;
  for (const part of path.slice(0, -1))
    node = Array.isArray(node) ? node[Number(part)] : isRecord(node) ? node[part] : undefined;
  const last = path.at(-1);
  if (Array.isArray(node) && typeof last === 'number') node[last] = replacement;
  else if (isRecord(node) && typeof last === 'string') node[last] = replacement;
}

export async function resolveSecrets(
  raw: unknown,
  engines: ReadonlyArray<SecretEngine>,
  options: { fetch: boolean },
): Promise<ResolvedSecrets> {
  const references: Array<{ path: KeyPath; reference: string }> = [];
  collect(raw, [], references);
  const issues: SecretIssue[] = [];
  const byName = new Map(engines.map((e) => [e.name, e]));
  let fileDir: string | undefined;
  let written = 0;
  const value = structuredClone(raw);

  for (const { path, reference } of references) {
    const parsed = parseSecretReference(reference);
    if (typeof parsed === 'string') {
      issues.push({ path, message: `invalid secret reference: ${parsed}` });
      continue;
    }
    const engine = byName.get(parsed.engine);
    if (engine === undefined) {
      const known = [...byName.keys()].join(', ');
      issues.push({ path, message: `unknown secrets engine '${parsed.engine}'; available: ${known}` });
      continue;
    }
    if (engine.unavailable !== undefined) {
      issues.push({ path, message: engine.unavailable });
      continue;
    }
    const paramProblem = checkParams(engine, parsed.params);
    if (paramProblem !== undefined) {
      issues.push({ path, message: paramProblem });
      continue;
    }
    if (!options.fetch) continue;
    try {
      if (parsed.form === 'file') {
        const existing = engine.existingFile?.(parsed.params);
        if (existing !== undefined) {
          setAt(value, path, existing);
          continue;
        }
        fileDir ??= await mkdtemp(join(tmpdir(), 'orch-agent-secrets-'));
        await chmod(fileDir, 0o700);
        const file = join(fileDir, `secret-${++written}`);
        await writeFile(file, await engine.resolve(parsed.params), { mode: 0o600 });
        setAt(value, path, file);
      } else {
        setAt(value, path, await engine.resolve(parsed.params));
      }
    } catch (error) {
      if (!(error instanceof SecretResolutionError)) throw error;
      issues.push({ path, message: error.message });
    }
  }

  return {
    value,
    references,
    issues,
    dispose: async () => {
      if (fileDir !== undefined) await rm(fileDir, { recursive: true, force: true });
    },
  };
}
