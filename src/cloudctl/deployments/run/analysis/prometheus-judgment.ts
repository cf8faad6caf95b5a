// One Prometheus query's verdict in one judgment: the range answer reduced to one number, the mean of
// every sample of every series (the original product averages), held to the query's limits and said
// as the built-in measures are, with the provider and the PromQL that was run. A query that gives no
// number (an error, no answer in time, no series, only NaN) fails: no data is no evidence the new
// version is healthy, and a mistyped label matcher must not pass a canary.
import { holdToLimits, type Limits, type Verdict } from './limits.ts';
import type { PrometheusAnswer } from './prometheus-client.ts';

/** Enough digits to tell values apart, few enough that 0.1 + 0.2 reads 0.3; limits see the same. */
const SIGNIFICANT_DIGITS = 6;

/** The mean of every finite sample, with how many there were; undefined when there are none. */
export function meanOfSamples(
  answer: Extract<PrometheusAnswer, { ok: true }>,
): { value: number; samples: number } | undefined {
  const samples = answer.series.flatMap((s) => s.values).filter((v) => Number.isFinite(v));
  if (samples.length === 0) return undefined;
  const mean = samples.reduce((sum, v) => sum + v, 0) / samples.length;
  return { value: Number(mean.toPrecision(SIGNIFICANT_DIGITS)), samples: samples.length };
}

export function judgeAnswer(
  query: { name: string } & Limits,
  provider: string,
  promql: string,
  answer: PrometheusAnswer,
): Verdict & { value?: number } {
  const source = `${provider}: ${promql}`;
  if (!answer.ok) return { passed: false, words: `${query.name}: no value (${source}: ${answer.reason})` };
  const reduced = meanOfSamples(answer);
  if (reduced === undefined)
    return {
      passed: false,
      words: `${query.name}: no value (${source}: ${answer.series.length === 0 ? 'no series' : 'no finite sample'} in the interval)`,
    };
  const plural = reduced.samples === 1 ? 'sample' : 'samples';
  const verdict = holdToLimits(
    query.name,
    reduced.value,
    query,
    ` (${source}, mean of ${reduced.samples} ${plural})`,
  );
  return { ...verdict, value: reduced.value };
}
