// The metric providers a file names exist, and each query's template is what its provider reads:
// a built-in measure for `builtin`, a PromQL template with known `{{vendor.*}}` variables (and
// `{{context.*}}` names the steps that run it give) for a Prometheus provider. Which providers exist
// is cloudctl's config's to say, so the check takes them as an argument; where they are not known
// (the CLI checks a file before sending it) any name passes and cloudctl checks it on receipt.
// A query runs on its own `metricProviderName`, else the step's, else the section's default.
import { nearest } from '../../../lib/did-you-mean.ts';
import { isRecord } from '../../../lib/is-record.ts';
import type { KeyPath } from '../../../lib/yaml-source.ts';
import { analysisSteps } from './analysis-references.ts';
import { BUILTIN_MEASURE_NAMES, BUILTIN_PROVIDER, isBuiltinMeasure } from './analysis-section.ts';
import { ANALYSIS_VARIABLES } from './analysis-variables.ts';
import type { Finding } from './finding.ts';
import { contextNames, parseTemplateOf } from './webhook-template.ts';

/** A provider of cloudctl's config (`analysis.providers`), as a file's checks need it. */
export interface ConfiguredProvider {
  name: string;
  type: 'prometheus';
}

type ProviderKind = 'builtin' | 'prometheus' | 'unknown';

function kindOf(name: string, providers: readonly ConfiguredProvider[] | undefined): ProviderKind {
  if (name === BUILTIN_PROVIDER) return 'builtin';
  // Unchecked here: a name cloudctl will check is read as the one other kind there is.
  if (providers === undefined) return 'prometheus';
  return providers.find((p) => p.name === name)?.type ?? 'unknown';
}

function unknownProvider(name: string, providers: readonly ConfiguredProvider[]): string {
  const names = providers.map((p) => p.name);
  const near = nearest(name, [BUILTIN_PROVIDER, ...names]);
  return `unknown metric provider '${name}'${near === undefined ? '' : `; did you mean '${near}'?`} (cloudctl's config, analysis.providers, defines ${names.length === 0 ? 'none' : names.join(', ')}; '${BUILTIN_PROVIDER}' is always there)`;
}

/** Why `template` cannot run on a provider of `kind`, or undefined when it can. */
function templateProblem(template: string, kind: ProviderKind, provider: string): string | undefined {
  if (kind === 'builtin')
    return isBuiltinMeasure(template)
      ? undefined
      : `the builtin provider measures ${BUILTIN_MEASURE_NAMES.join(', ')}; found '${template}'`;
  if (kind === 'unknown') return undefined;
  const parsed = parseTemplateOf(template, ANALYSIS_VARIABLES);
  return parsed.ok ? undefined : `a query of '${provider}' (PromQL): ${parsed.message}`;
}

interface DeclaredQuery {
  index: number;
  name: string;
  template: string | undefined;
  provider: string | undefined;
  /** A PromQL query has no default limit: without one it could never fail. */
  limited: boolean;
}

function declaredQueries(section: Record<string, unknown>): DeclaredQuery[] {
  if (!Array.isArray(section.queries)) return [];
  return section.queries.flatMap((q, index) =>
    isRecord(q) && typeof q.name === 'string'
      ? [
          {
            index,
            name: q.name,
            template: typeof q.queryTemplate === 'string' ? q.queryTemplate : undefined,
            provider: typeof q.metricProviderName === 'string' ? q.metricProviderName : undefined,
            limited: q.upperLimit !== undefined || q.lowerLimit !== undefined,
          },
        ]
      : [],
  );
}

export function analysisProviderChecks(
  raw: Record<string, unknown>,
  providers: readonly ConfiguredProvider[] | undefined,
): Finding[] {
  const findings: Finding[] = [];
  const at = (path: KeyPath, message: string) => findings.push({ path, at: 'value', message });
  const section = isRecord(raw.analysis) ? raw.analysis : {};
  const defaultName =
    typeof section.defaultMetricProviderName === 'string'
      ? section.defaultMetricProviderName
      : BUILTIN_PROVIDER;
  const named = (name: unknown, path: KeyPath) => {
    if (typeof name === 'string' && providers !== undefined && kindOf(name, providers) === 'unknown')
      at(path, unknownProvider(name, providers));
  };
  named(section.defaultMetricProviderName, ['analysis', 'defaultMetricProviderName']);
  const queries = declaredQueries(section);
  for (const q of queries) {
    const path: KeyPath = ['analysis', 'queries', q.index];
    named(q.provider, [...path, 'metricProviderName']);
    const provider = q.provider ?? defaultName;
    const kind = kindOf(provider, providers);
    const problem = q.template === undefined ? undefined : templateProblem(q.template, kind, provider);
    if (problem !== undefined) at([...path, 'queryTemplate'], problem);
    if (kind === 'prometheus' && !q.limited)
      at(
        path,
        `query '${q.name}' of '${provider}' needs upperLimit or lowerLimit: without one it cannot fail`,
      );
  }
  for (const { path, step } of analysisSteps(raw)) {
    named(step.metricProviderName, [...path, 'metricProviderName']);
    if (!Array.isArray(step.queries)) continue;
    const stepProvider = typeof step.metricProviderName === 'string' ? step.metricProviderName : undefined;
    const context = isRecord(step.context) ? Object.keys(step.context) : [];
    step.queries.forEach((name, index) => {
      const query = queries.find((q) => q.name === name);
      if (query?.template === undefined) return;
      const provider = query.provider ?? stepProvider ?? defaultName;
      const kind = kindOf(provider, providers);
      // The query's own place reported its template under its own provider; the step's differs.
      if (
        query.provider === undefined &&
        stepProvider !== undefined &&
        kind !== kindOf(defaultName, providers)
      ) {
        const problem = templateProblem(query.template, kind, provider);
        if (problem !== undefined)
          at([...path, 'queries', index], `query '${query.name}' runs on '${provider}' here: ${problem}`);
      }
      if (kind !== 'prometheus') return;
      const parsed = parseTemplateOf(query.template, ANALYSIS_VARIABLES);
      const missing = parsed.ok ? contextNames(parsed.parts).filter((c) => !context.includes(c)) : [];
      if (missing.length > 0)
        at(
          [...path, 'queries', index],
          `query '${query.name}' uses ${missing.map((c) => `{{context.${c}}}`).join(', ')}, which this step's context does not give (context: ${context.length === 0 ? 'none' : context.join(', ')})`,
        );
    });
  }
  return findings;
}
