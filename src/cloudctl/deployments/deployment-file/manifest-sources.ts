// Reads what `manifests[]` names: a file, every .yaml/.yml file of a directory (sorted, not
// recursive), or the inline YAML, each split into Kubernetes objects. Paths are relative to the
// deployment file. A deployment received without its directory (baseDir undefined) must inline its
// manifests, since paths would be read on the wrong machine.
import { readdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { type ConfigIssue, makeIssue } from '../../../lib/config-issue.ts';
import { errorCode } from '../../../lib/is-record.ts';
import type { KeyPath, SourcePosition } from '../../../lib/yaml-source.ts';
import { type ManifestObject, manifestDocuments } from './manifest-documents.ts';
import type { ManifestEntry } from './manifest-entry.ts';

export interface ResolvedManifest {
  /** The file the objects were read from, or `manifests[2].inline`. */
  origin: string;
  /** The targets that deploy these objects: the entry's `targets`, or every target. */
  targets: string[];
  objects: ManifestObject[];
}

export interface ManifestReadContext {
  file: string;
  baseDir: string | undefined;
  targetNames: ReadonlyArray<string>;
  locate(path: KeyPath): SourcePosition;
  /** Where a position inside the inline YAML at `path` sits in the file, when that can be told. */
  locateInline(path: KeyPath, inner: SourcePosition): SourcePosition | undefined;
}

async function filesAt(path: string): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path];
  const names = (await readdir(path, { withFileTypes: true }))
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => e.name)
    .sort();
  return names.map((name) => join(path, name));
}

/** `entries` pairs each entry with its index in the file's `manifests` list. */
export async function readManifests(
  entries: ReadonlyArray<readonly [number, ManifestEntry]>,
  context: ManifestReadContext,
): Promise<{ manifests: ResolvedManifest[]; issues: ConfigIssue[] }> {
  const manifests: ResolvedManifest[] = [];
  const issues: ConfigIssue[] = [];
  for (const [index, entry] of entries) {
    const targets = entry.targets ?? [...context.targetNames];
    if (entry.inline !== undefined) {
      const path = ['manifests', index, 'inline'];
      const { objects, problems } = manifestDocuments(entry.inline);
      for (const p of problems) {
        const inFile = context.locateInline(path, p.at);
        issues.push(
          inFile === undefined
            ? makeIssue(
                'error',
                context.file,
                context.locate(path),
                path,
                `line ${p.at.line} of the inline YAML: ${p.message}`,
              )
            : makeIssue('error', context.file, inFile, path, p.message),
        );
      }
      manifests.push({ origin: `manifests[${index}].inline`, targets, objects });
      continue;
    }
    const named = entry.path ?? '';
    const path = ['manifests', index, 'path'];
    const at = context.locate(path);
    if (context.baseDir === undefined && !isAbsolute(named)) {
      issues.push(
        makeIssue(
          'error',
          context.file,
          at,
          path,
          `'${named}' is relative, and this deployment has no directory: inline the manifest`,
        ),
      );
      continue;
    }
    const full = resolve(context.baseDir ?? '/', named);
    let files: string[];
    try {
      files = await filesAt(full);
    } catch (error) {
      issues.push(
        makeIssue('error', context.file, at, path, `cannot read ${named} (${full}): ${errorCode(error)}`),
      );
      continue;
    }
    if (files.length === 0)
      issues.push(
        makeIssue(
          'error',
          context.file,
          at,
          path,
          `directory ${named} (${full}) holds no .yaml or .yml file`,
        ),
      );
    for (const file of files) {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        issues.push(makeIssue('error', context.file, at, path, `cannot read ${file}: ${errorCode(error)}`));
        continue;
      }
      const { objects, problems } = manifestDocuments(text);
      for (const p of problems) issues.push(makeIssue('error', file, p.at, [], p.message));
      if (objects.length === 0 && problems.length === 0)
        issues.push(makeIssue('error', context.file, at, path, `${file} holds no Kubernetes object`));
      manifests.push({ origin: file, targets, objects });
    }
  }
  return { manifests, issues };
}
