import { dirname } from 'node:path';
import { type ConfigIssue, describeFound, describeZodIssue, makeIssue } from '../../lib/config-issue.ts';
import { isRecord } from '../../lib/is-record.ts';
import { indexSchema, type SchemaIndex } from '../../lib/schema-walk.ts';
import { readYamlFile } from '../../lib/yaml-file.ts';
import type { KeyPath, YamlSource } from '../../lib/yaml-source.ts';
import { builtinEngines, resolveSecrets, type SecretEngine, secretsSchema } from '../../secrets/index.ts';
import { dropEmptyValues } from './empty-values.ts';
import { checkKeys } from './key-check.ts';
import { AGENT_CONFIG_SCHEMAS, type AgentConfig } from './schema/agent-config.ts';
import { DEFAULT_VARIANT, VARIANTS, type Variant, variantSchema } from './schema/variant.ts';
import { inferVariant } from './variant-inference.ts';
import { variantNotes } from './variant-notes.ts';

export interface LoadConfigOptions {
  /** Fetch secret values (run) or only check the references (validate, print). */
  fetchSecrets: boolean;
  env?: NodeJS.ProcessEnv;
  /** Prefix of the service account files the `k8s` engine reads in a pod ('' or unset: the real ones). */
  serviceAccountRoot?: string;
  /** Extra engines beside the built-in `file`, `env`, `k8s` and `vault`. */
  engines?: ReadonlyArray<SecretEngine>;
}

export interface LoadedConfig {
  ok: true;
  file: string;
  config: AgentConfig;
  /** Warnings and debug notes; no errors. */
  issues: ConfigIssue[];
  /** Key paths that held a secret reference, with the reference text (safe to show). */
  secretReferences: Array<{ path: KeyPath; reference: string }>;
  /** The engines the file's references were resolved with; dynamic account definitions use them too. */
  secretEngines: ReadonlyArray<SecretEngine>;
  /** Where a key path sits in the file, for problems found after loading. */
  locate(path: KeyPath): { line: number; column: number };
  dispose(): Promise<void>;
}

export interface FailedConfig {
  ok: false;
  file: string;
  issues: ConfigIssue[];
}

let indexes: Record<Variant, SchemaIndex> | undefined;
export function schemaIndexes(): Record<Variant, SchemaIndex> {
  indexes ??= {
    A: indexSchema(AGENT_CONFIG_SCHEMAS.A),
    B: indexSchema(AGENT_CONFIG_SCHEMAS.B),
    C: indexSchema(AGENT_CONFIG_SCHEMAS.C),
  };
  return indexes;
}

function enginesFor(
  raw: Record<string, unknown>,
  file: string,
  env: NodeJS.ProcessEnv,
  serviceAccountRoot: string | undefined,
): SecretEngine[] {
  // The store settings are needed before the whole file is validated; if they are malformed the
  // schema reports it below, and the engines fall back to their defaults meanwhile.
  const store = secretsSchema().safeParse(raw.secrets);
  return builtinEngines({
    store: (store.success ? store.data : secretsSchema().parse(undefined)).store,
    configDir: dirname(file),
    env,
    noProxy: isRecord(raw.orchestrator) && raw.orchestrator.noProxy === true,
    ...(serviceAccountRoot === undefined ? {} : { serviceAccountRoot }),
  });
}

/** The file's YAML as a map of settings, or the issue saying why it is not one. */
async function readSettings(
  file: string,
): Promise<{ source: YamlSource; raw: Record<string, unknown> } | ConfigIssue> {
  const read = await readYamlFile(file);
  if (!read.ok) return read.issue;
  const source = read.value;
  const raw = source.value ?? {};
  if (!isRecord(raw)) {
    return makeIssue(
      'error',
      file,
      source.valueAt([]),
      [],
      `expected a map of settings, found ${describeFound(raw)}`,
    );
  }
  return { source, raw };
}

/** The variant the file says, else the one its keys imply, else the default; or why `variant:` is wrong. */
function variantOf(raw: Record<string, unknown>, file: string, source: YamlSource) {
  // `variant:` with nothing after it is not set, like any other empty key.
  const variantResult = variantSchema.optional().safeParse(raw.variant ?? undefined);
  if (!variantResult.success) {
    const found = describeFound(raw.variant);
    const message = `expected one of ${VARIANTS.join(', ')}, found ${found}`;
    return makeIssue('error', file, source.valueAt(['variant']), ['variant'], message);
  }
  const written = variantResult.data;
  const inferred = written === undefined ? inferVariant(raw, schemaIndexes()) : undefined;
  return { variant: written ?? inferred?.variant ?? DEFAULT_VARIANT, written, note: inferred?.note };
}

export async function loadConfig(
  file: string,
  options: LoadConfigOptions,
): Promise<LoadedConfig | FailedConfig> {
  const fail = (issues: ConfigIssue[]): FailedConfig => ({ ok: false, file, issues });
  const read = await readSettings(file);
  if ('message' in read) return fail([read]);
  const { source, raw } = read;
  const at = (path: KeyPath) => source.valueAt(path);
  const keyAt = (path: KeyPath) => source.keyAt(path) ?? source.valueAt(path);
  const chosen = variantOf(raw, file, source);
  if ('message' in chosen) return fail([chosen]);
  const { variant, written, note } = chosen;

  const issues: ConfigIssue[] = checkKeys(raw, variant, schemaIndexes(), written !== undefined).map((f) =>
    makeIssue(f.severity, file, keyAt(f.path), f.path, f.message),
  );
  if (note !== undefined) issues.unshift(makeIssue('info', file, { line: 1, column: 1 }, [], note));
  const settings = dropEmptyValues(raw, schemaIndexes()[variant]);
  for (const f of variantNotes(settings, variant)) {
    issues.push(makeIssue(f.severity, file, keyAt(f.path), f.path, f.message));
  }

  const engines = [
    ...enginesFor(settings, file, options.env ?? process.env, options.serviceAccountRoot),
    ...(options.engines ?? []),
  ];
  const secrets = await resolveSecrets(settings, engines, { fetch: options.fetchSecrets });
  for (const problem of secrets.issues)
    issues.push(makeIssue('error', file, at(problem.path), problem.path, problem.message));

  const parsed = AGENT_CONFIG_SCHEMAS[variant].safeParse(secrets.value, { reportInput: true });
  if (!parsed.success) {
    for (const zodIssue of parsed.error.issues) {
      const path = zodIssue.path.filter((p): p is string | number => typeof p !== 'symbol');
      issues.push(makeIssue('error', file, at(path), path, describeZodIssue(zodIssue)));
    }
  }

  if (issues.some((i) => i.severity === 'error') || !parsed.success) {
    await secrets.dispose();
    issues.sort((a, b) => a.line - b.line || a.column - b.column);
    return fail(issues);
  }
  return {
    ok: true,
    file,
    config: parsed.data,
    issues,
    secretReferences: secrets.references,
    secretEngines: engines,
    locate: keyAt,
    dispose: secrets.dispose,
  };
}
