// analysis: the new version judged `numberOfJudgmentRuns` times, one judgment every `interval`, each
// query by its provider: the built-in one from what the agent reads of the account (the version's
// pods, the old version's for the ready ratio, Warning events about the new pods), a Prometheus one
// of cloudctl's config by its PromQL over the interval just past. Every judgment is written in words
// to the deployment's log. The spec's rule 4: a failed analysis does not roll back by itself; the
// target stops where it is (canary at its weight) and the deployment's rollback is offered to a
// person (`rollBackMode: automatic` asks for the automatic rollback instead). Judgment times count
// from the step's stored start, so a restarted cloudctl judges only the runs still to come.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BUILTIN_PROVIDER,
  type BuiltinMeasure,
  isBuiltinMeasure,
} from '../../deployment-file/analysis-section.ts';
import type { AnalysisStep } from '../../deployment-file/analysis-step.ts';
import { durationMs } from '../../deployment-file/duration.ts';
import { judge, type VersionHealth } from '../analysis/builtin-judgment.ts';
import type { Verdict } from '../analysis/limits.ts';
import { podHealth } from '../analysis/pod-health.ts';
import type { PrometheusClient } from '../analysis/prometheus-client.ts';
import { judgeAnswer } from '../analysis/prometheus-judgment.ts';
import { renderQuery } from '../analysis/query-template.ts';
import type { Workload } from '../deployment-progress.ts';
import { VERSION_LABEL, WORKLOAD_LABEL } from '../versioned-manifests.ts';
import { type StepContext, StepFailure } from './step-context.ts';
import type { StepKind } from './step-kind.ts';

/** Events are read per pod: a version's first pods say enough, and a big one would cost a read each. */
const PODS_WITH_EVENTS = 10;

interface BuiltinQuery {
  name: string;
  measure: BuiltinMeasure;
  upperLimit: number | undefined;
  lowerLimit: number | undefined;
}

interface PrometheusQuery {
  name: string;
  client: PrometheusClient;
  template: string;
  upperLimit: number | undefined;
  lowerLimit: number | undefined;
}

interface ResolvedQueries {
  builtin: BuiltinQuery[];
  prometheus: PrometheusQuery[];
  /** The step's query names in its order: the verdict's words follow it. */
  order: string[];
}

/** Each query with its provider: its own, else the step's, else the file's default. */
function resolveQueries(run: StepContext, analysis: AnalysisStep): ResolvedQueries {
  const section = run.deps.file.analysis;
  const out: ResolvedQueries = { builtin: [], prometheus: [], order: analysis.queries };
  for (const name of analysis.queries) {
    const query = section.queries.find((q) => q.name === name);
    if (query === undefined && isBuiltinMeasure(name)) {
      out.builtin.push({ name, measure: name, upperLimit: undefined, lowerLimit: undefined });
      continue;
    }
    // The loader checked every name; a stored file that no longer agrees is not judged.
    if (query === undefined) throw new StepFailure(`analysis: no query named '${name}'`, false);
    const { upperLimit, lowerLimit } = query;
    const provider =
      query.metricProviderName ?? analysis.metricProviderName ?? section.defaultMetricProviderName;
    if (provider === BUILTIN_PROVIDER && isBuiltinMeasure(query.queryTemplate)) {
      out.builtin.push({ name, measure: query.queryTemplate, upperLimit, lowerLimit });
      continue;
    }
    const client = run.deps.metricProviders.prometheus(provider);
    if (client === undefined)
      throw new StepFailure(
        `analysis: query '${name}' names metric provider '${provider}', which cloudctl's config (analysis.providers) no longer defines`,
        false,
      );
    out.prometheus.push({ name, client, template: query.queryTemplate, upperLimit, lowerLimit });
  }
  return out;
}

/** A PromQL step that reads about ten points of an interval, never finer than a second. */
function stepSecondsOf(intervalMs: number): number {
  return Math.max(1, Math.round(intervalMs / 10_000));
}

/** One Prometheus query's verdict on one workload, over the interval that ends now. */
async function askPrometheus(
  run: StepContext,
  query: PrometheusQuery,
  workload: Workload,
  analysis: AnalysisStep,
  intervalMs: number,
): Promise<Verdict> {
  const old = workload.previous[0];
  const stepSeconds = stepSecondsOf(intervalMs);
  const rendered = renderQuery(
    query.template,
    {
      applicationName: run.deps.application,
      environmentName: run.target.name,
      accountName: run.target.account,
      namespace: workload.namespace,
      deploymentId: run.deps.deploymentId,
      replicaSetName: workload.replicaSet,
      previousReplicaSetName: old?.name,
      version: workload.version,
      previousVersion: old?.version,
      promQlStepInterval: `${stepSeconds}s`,
      intervalSeconds: String(Math.round(intervalMs / 1000)),
    },
    analysis.context ?? {},
  );
  if (!rendered.ok)
    return { passed: false, words: `${query.name}: no value (${query.client.name}: ${rendered.reason})` };
  const end = run.deps.now();
  const answer = await query.client.queryRange(
    { query: rendered.query, start: new Date(end.getTime() - intervalMs), end, stepSeconds },
    run.waits,
  );
  return judgeAnswer(query, query.client.name, rendered.query, answer);
}

async function versionHealth(
  run: StepContext,
  workload: Workload,
  version: string,
  withEvents: boolean,
): Promise<VersionHealth> {
  const { account } = run.target;
  const { items } = await run.deps.read(account, 'list', {
    apiVersion: 'v1',
    kind: 'Pod',
    namespace: workload.namespace,
    labelSelector: `${WORKLOAD_LABEL}=${workload.name},${VERSION_LABEL}=${version}`,
    scrubbed: true,
  });
  const pods = podHealth(items);
  const warnings: string[] = [];
  if (withEvents)
    for (const pod of pods.slice(0, PODS_WITH_EVENTS)) {
      const { events } = await run.deps.read(account, 'events', {
        apiVersion: 'v1',
        kind: 'Pod',
        namespace: workload.namespace,
        name: pod.name,
      });
      for (const e of events)
        if (e.type === 'Warning')
          warnings.push(`${pod.name}: ${e.reason ?? 'Warning'}: ${e.message ?? ''}`.trim());
    }
  return { pods, warnings };
}

/** The built-in queries' verdicts on one workload, by query name. */
async function builtinVerdicts(
  run: StepContext,
  queries: BuiltinQuery[],
  w: Workload,
): Promise<Map<string, Verdict>> {
  if (queries.length === 0) return new Map();
  const wantsEvents = queries.some((q) => q.measure === 'warningEvents');
  const current = await versionHealth(run, w, w.version, wantsEvents);
  const old = w.previous[0];
  const previous =
    old === undefined || !queries.some((q) => q.measure === 'readyRatio')
      ? undefined
      : await versionHealth(run, w, old.version, false);
  return new Map(judge(queries, current, previous).results.map((r) => [r.query, r]));
}

/** One judgment over every workload of the target: the failed queries' words, or the kept ones'. */
async function judgeOnce(
  run: StepContext,
  queries: ResolvedQueries,
  analysis: AnalysisStep,
  intervalMs: number,
): Promise<{ passed: boolean; words: string }> {
  const failed: string[] = [];
  const kept: string[] = [];
  for (const w of run.target.workloads ?? []) {
    const verdicts = await builtinVerdicts(run, queries.builtin, w);
    for (const q of queries.prometheus)
      verdicts.set(q.name, await askPrometheus(run, q, w, analysis, intervalMs));
    const prefix = (run.target.workloads ?? []).length > 1 ? `${w.replicaSet}: ` : '';
    for (const name of queries.order) {
      const r = verdicts.get(name);
      if (r !== undefined) (r.passed ? kept : failed).push(`${prefix}${r.words}`);
    }
  }
  return failed.length > 0
    ? { passed: false, words: failed.join('; ') }
    : { passed: true, words: kept.join(', ') };
}

export const analysisStep: StepKind = async (step, run) => {
  const definition = run.definition(step);
  if (!('analysis' in definition)) throw new StepFailure('not an analysis step', false);
  const analysis = definition.analysis;
  const queries = resolveQueries(run, analysis);
  const every = durationMs({ duration: analysis.interval, unit: analysis.units });
  const runs = analysis.numberOfJudgmentRuns;
  const started = Date.parse(step.startedAt ?? run.deps.now().toISOString());
  if (step.until === undefined) {
    step.until = new Date(started + every * runs).toISOString();
    await run.deps.save();
  }
  let words = '';
  for (let k = 1; k <= runs; k++) {
    const at = started + every * k;
    // A judgment whose time passed while no cloudctl ran is not made up afterwards; the last one is.
    if (k < runs && run.deps.now().getTime() > at + every) continue;
    const left = at - run.deps.now().getTime();
    if (left > 0) await sleep(left, undefined, { signal: run.waits });
    const judgment = await judgeOnce(run, queries, analysis, every);
    words = judgment.words;
    if (!judgment.passed) {
      const automatic = analysis.rollBackMode === 'automatic' && run.rollsBack(step);
      const reason = `analysis failed at judgment ${k} of ${runs}: ${words}`;
      run.deps.log(reason);
      throw new StepFailure(
        automatic
          ? reason
          : `${reason}; the new version stays where it is: roll back from the deployment's page or POST /deployments/${run.deps.deploymentId}/rollback`,
        automatic,
      );
    }
    run.deps.log(`analysis judgment ${k} of ${runs} passed: ${words}`);
  }
  return `analysis passed ${runs} of ${runs} judgments: ${words}`;
};
