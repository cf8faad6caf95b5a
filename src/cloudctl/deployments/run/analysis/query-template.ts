// A Prometheus query template made into the PromQL of one judgment: `{{vendor.*}}` from the run and
// the judged workload, `{{context.*}}` from the step's context, put in as plain text in one pass (the
// template decides the quoting, as in the original product). A value the run does not have (no old
// version) makes the query unrenderable, which fails the judgment saying which.
import { ANALYSIS_VARIABLES, type AnalysisValues } from '../../deployment-file/analysis-variables.ts';
import { parseTemplateOf } from '../../deployment-file/webhook-template.ts';

export type RenderedQuery = { ok: true; query: string } | { ok: false; reason: string };

export function renderQuery(
  template: string,
  values: AnalysisValues,
  context: Readonly<Record<string, string | number | boolean>>,
): RenderedQuery {
  const parsed = parseTemplateOf(template, ANALYSIS_VARIABLES);
  if (!parsed.ok) return { ok: false, reason: parsed.message };
  let query = '';
  for (const part of parsed.parts) {
    if (typeof part === 'string') {
      query += part;
      continue;
    }
    const value = part.namespace === 'vendor' ? values[part.name] : context[part.name];
    if (value === undefined) return { ok: false, reason: `${part.text} has no value here` };
    query += String(value);
  }
  return { ok: true, query };
}
