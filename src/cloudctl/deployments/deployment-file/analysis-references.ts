// The queries an `analysis` step names exist: in the file's `analysis.queries`, or as a built-in
// measure's own name. Checked on the raw file, beside the schema, so one run reports everything.
import { nearest } from '../../../lib/did-you-mean.ts';
import { isRecord } from '../../../lib/is-record.ts';
import type { KeyPath } from '../../../lib/yaml-source.ts';
import { BUILTIN_MEASURE_NAMES } from './analysis-section.ts';
import type { Finding } from './finding.ts';

/** Path and value of every `analysis` step in a canary or a blue/green `redirectTrafficAfter`. */
export function analysisSteps(
  raw: Record<string, unknown>,
): Array<{ path: KeyPath; step: Record<string, unknown> }> {
  const out: Array<{ path: KeyPath; step: Record<string, unknown> }> = [];
  const collect = (list: unknown, path: KeyPath) => {
    if (!Array.isArray(list)) return;
    list.forEach((step, index) => {
      if (isRecord(step) && isRecord(step.analysis))
        out.push({ path: [...path, index, 'analysis'], step: step.analysis });
    });
  };
  for (const [name, strategy] of Object.entries(isRecord(raw.strategies) ? raw.strategies : {})) {
    if (!isRecord(strategy)) continue;
    if (isRecord(strategy.canary)) collect(strategy.canary.steps, ['strategies', name, 'canary', 'steps']);
    if (isRecord(strategy.blueGreen))
      collect(strategy.blueGreen.redirectTrafficAfter, [
        'strategies',
        name,
        'blueGreen',
        'redirectTrafficAfter',
      ]);
  }
  return out;
}

export function analysisReferences(raw: Record<string, unknown>): Finding[] {
  const section = isRecord(raw.analysis) ? raw.analysis : {};
  const declared = Array.isArray(section.queries)
    ? section.queries.flatMap((q) => (isRecord(q) && typeof q.name === 'string' ? [q.name] : []))
    : [];
  const names = [...declared, ...BUILTIN_MEASURE_NAMES.filter((m) => !declared.includes(m))];
  const findings: Finding[] = [];
  for (const { path, step } of analysisSteps(raw)) {
    if (!Array.isArray(step.queries)) continue;
    step.queries.forEach((query, index) => {
      if (typeof query !== 'string' || names.includes(query)) return;
      const near = nearest(query, names);
      findings.push({
        path: [...path, 'queries', index],
        at: 'value',
        message: `no analysis query named '${query}'${near === undefined ? '' : `; did you mean '${near}'?`} (analysis.queries defines ${declared.length === 0 ? 'none' : declared.join(', ')}; built-in measures: ${BUILTIN_MEASURE_NAMES.join(', ')})`,
      });
    });
  }
  return findings;
}
