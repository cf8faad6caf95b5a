// analysis: the built-in provider judges the new version `numberOfJudgmentRuns` times, one judgment
// every `interval`, from what the agent reads of the account (the version's pods, the old version's
// for the ready ratio, Warning events about the new pods), and writes every judgment in words to the
// deployment's log. The spec's rule 4: a failed analysis does not roll back by itself; the target
// stops where it is (canary at its weight) and the deployment's rollback is offered to a person
// (`rollBackMode: automatic` asks for the automatic rollback instead). Judgment times count from
// the step's stored start, so a restarted cloudctl judges only the runs still to come.
import { setTimeout as sleep } from 'node:timers/promises';
import { type BuiltinMeasure, isBuiltinMeasure } from '../../deployment-file/analysis-section.ts';
import type { AnalysisStep } from '../../deployment-file/analysis-step.ts';
import { durationMs } from '../../deployment-file/duration.ts';
import { judge, type VersionHealth } from '../analysis/builtin-judgment.ts';
import { podHealth } from '../analysis/pod-health.ts';
import type { Workload } from '../deployment-progress.ts';
import { VERSION_LABEL, WORKLOAD_LABEL } from '../versioned-manifests.ts';
import { type StepContext, StepFailure } from './step-context.ts';
import type { StepKind } from './step-kind.ts';

/** Events are read per pod: a version's first pods say enough, and a big one would cost a read each. */
const PODS_WITH_EVENTS = 10;

interface ResolvedQuery {
  name: string;
  measure: BuiltinMeasure;
  upperLimit: number | undefined;
  lowerLimit: number | undefined;
}

function resolveQueries(run: StepContext, analysis: AnalysisStep): ResolvedQuery[] {
  const declared = run.deps.file.analysis.queries;
  return analysis.queries.map((name) => {
    const query = declared.find((q) => q.name === name);
    if (query !== undefined && isBuiltinMeasure(query.queryTemplate))
      return {
        name,
        measure: query.queryTemplate,
        upperLimit: query.upperLimit,
        lowerLimit: query.lowerLimit,
      };
    if (query === undefined && isBuiltinMeasure(name))
      return { name, measure: name, upperLimit: undefined, lowerLimit: undefined };
    // The loader checked every name; a stored file that no longer agrees is not judged.
    throw new StepFailure(`analysis: no query named '${name}'`, false);
  });
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

/** One judgment over every workload of the target: the failed measures' words, or the kept ones'. */
async function judgeOnce(
  run: StepContext,
  queries: ResolvedQuery[],
): Promise<{ passed: boolean; words: string }> {
  const failed: string[] = [];
  const kept: string[] = [];
  const wantsEvents = queries.some((q) => q.measure === 'warningEvents');
  for (const w of run.target.workloads ?? []) {
    const current = await versionHealth(run, w, w.version, wantsEvents);
    const old = w.previous[0];
    const previous =
      old === undefined || !queries.some((q) => q.measure === 'readyRatio')
        ? undefined
        : await versionHealth(run, w, old.version, false);
    const judgment = judge(queries, current, previous);
    const prefix = (run.target.workloads ?? []).length > 1 ? `${w.replicaSet}: ` : '';
    for (const r of judgment.results) (r.passed ? kept : failed).push(`${prefix}${r.words}`);
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
    const judgment = await judgeOnce(run, queries);
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
