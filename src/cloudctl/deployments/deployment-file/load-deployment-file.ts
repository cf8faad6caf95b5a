import { dirname, resolve } from 'node:path';
import type { z } from 'zod';
import { type ConfigIssue, describeFound, describeZodIssue, makeIssue } from '../../../lib/config-issue.ts';
import { nearest } from '../../../lib/did-you-mean.ts';
import { isRecord } from '../../../lib/is-record.ts';
import { didYouMean } from '../../../lib/key-suggestion.ts';
import { parseYamlText, readTextFile } from '../../../lib/yaml-file.ts';
import { formatKeyPath, type KeyPath, type SourcePosition } from '../../../lib/yaml-source.ts';
import { acceptedKeys } from './accepted-keys.ts';
import { analysisProviderChecks, type ConfiguredProvider } from './analysis-providers.ts';
import { analysisReferences } from './analysis-references.ts';
import { crossReferences } from './cross-references.ts';
import { type DeploymentFile, deploymentFileSchema } from './deployment-file-schema.ts';
import type { Finding } from './finding.ts';
import { literalBlockPosition } from './literal-block.ts';
import { type ManifestEntry, manifestEntrySchema } from './manifest-entry.ts';
import { type ResolvedManifest, readManifests } from './manifest-sources.ts';
import { trafficReferences } from './traffic-references.ts';
import { webhookTemplateChecks } from './webhook-template-check.ts';

export interface LoadedDeployment {
  ok: true;
  file: string;
  deployment: DeploymentFile;
  /** The objects of `manifests[]`, read and split, in file order. */
  manifests: ResolvedManifest[];
  /** Where a key path sits in the file, for problems found later (by a run, say). */
  locate(path: KeyPath): SourcePosition;
}

export interface FailedDeployment {
  ok: false;
  file: string;
  /** Every problem, all errors: the deployment file's in line order, then the manifest files'. */
  issues: ConfigIssue[];
}

export interface ParseDeploymentOptions {
  /** How messages name the file (its path, or `request body`). */
  file: string;
  /** Directory that relative manifest paths start from; undefined: manifests must be inline. */
  baseDir: string | undefined;
  /**
   * cloudctl's configured metric providers (`analysis.providers`): a file naming another is refused.
   * Undefined where they are not known (the CLI, before it sends the file): names are not checked.
   */
  analysisProviders?: readonly ConfiguredProvider[] | undefined;
}

/** Keys of the original product's files that this service does not implement, said as such. */
const NOT_SUPPORTED: Readonly<Record<string, string>> = {};

function unknownKey(key: string, known: ReadonlyArray<string>): string {
  const unsupported = NOT_SUPPORTED[key];
  if (unsupported !== undefined) return `unknown key '${key}': ${unsupported}`;
  return `unknown key '${key}'${didYouMean(nearest(key, known))}`;
}

function schemaFindings(issue: z.core.$ZodIssue, all: ReadonlyArray<z.core.$ZodIssue>): Finding[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  switch (issue.code) {
    case 'unrecognized_keys': {
      const keys = acceptedKeys(deploymentFileSchema, path);
      return issue.keys.map((key) => ({
        path: [...path, key],
        at: 'key',
        message: unknownKey(key, keys),
      }));
    }
    case 'invalid_key':
      return [{ path, at: 'key', message: issue.issues[0]?.message ?? issue.message }];
    case 'custom': {
      // "a step needs one of …, found none" is noise beside the unknown key that was meant.
      const unknownKeyHere = all.some(
        (other) =>
          other.code === 'unrecognized_keys' &&
          formatKeyPath(other.path.filter((p) => typeof p !== 'symbol')) === formatKeyPath(path),
      );
      if (issue.params?.oneOfKeys === 0 && unknownKeyHere) return [];
      return [{ path, at: 'value', message: describeZodIssue(issue) }];
    }
    default:
      return [{ path, at: 'value', message: describeZodIssue(issue) }];
  }
}

/** The entries of `manifests[]` that are well formed, so their files are read even when others are not. */
function readableEntries(raw: Record<string, unknown>): Array<[number, ManifestEntry]> {
  if (!Array.isArray(raw.manifests)) return [];
  return raw.manifests.flatMap((entry, index): Array<[number, ManifestEntry]> => {
    const parsed = manifestEntrySchema.safeParse(entry);
    return parsed.success ? [[index, parsed.data]] : [];
  });
}

export async function parseDeploymentFile(
  text: string,
  options: ParseDeploymentOptions,
): Promise<LoadedDeployment | FailedDeployment> {
  const { file } = options;
  const fail = (issues: ConfigIssue[]): FailedDeployment => ({ ok: false, file, issues });
  const yaml = parseYamlText(text, file);
  if (!yaml.ok) return fail([yaml.issue]);
  const source = yaml.value;
  const raw = source.value;
  if (!isRecord(raw))
    return fail([
      makeIssue(
        'error',
        file,
        source.valueAt([]),
        [],
        `expected a deployment file (a map), found ${describeFound(raw)}`,
      ),
    ]);
  const keyAt = (path: KeyPath) => source.keyAt(path) ?? source.valueAt(path);

  const parsed = deploymentFileSchema.safeParse(raw, { reportInput: true });
  const findings = [
    ...(parsed.success ? [] : parsed.error.issues.flatMap((i) => schemaFindings(i, parsed.error.issues))),
    ...crossReferences(raw),
    ...analysisReferences(raw),
    ...analysisProviderChecks(raw, options.analysisProviders),
    ...trafficReferences(raw),
    ...webhookTemplateChecks(raw),
  ];
  const issues = findings.map((f) =>
    makeIssue('error', file, f.at === 'key' ? keyAt(f.path) : source.valueAt(f.path), f.path, f.message),
  );

  const read = await readManifests(readableEntries(raw), {
    file,
    baseDir: options.baseDir,
    targetNames: isRecord(raw.targets) ? Object.keys(raw.targets) : [],
    locate: (path) => source.valueAt(path),
    locateInline: (path, inner) => literalBlockPosition(text, source.valueAt(path), inner),
  });
  issues.push(...read.issues);

  if (!parsed.success || issues.length > 0) {
    issues.sort(
      (a, b) =>
        Number(a.file !== file) - Number(b.file !== file) ||
        a.file.localeCompare(b.file) ||
        a.line - b.line ||
        a.column - b.column,
    );
    return fail(issues);
  }
  return { ok: true, file, deployment: parsed.data, manifests: read.manifests, locate: keyAt };
}

/** A file on disk; `analysisProviders` as ParseDeploymentOptions says (the CLI knows none). */
export async function loadDeploymentFile(
  file: string,
  analysisProviders?: readonly ConfiguredProvider[],
): Promise<LoadedDeployment | FailedDeployment> {
  const text = await readTextFile(file);
  if (!text.ok) return { ok: false, file, issues: [text.issue] };
  return parseDeploymentFile(text.value, { file, baseDir: dirname(resolve(file)), analysisProviders });
}
