// One judgment of the built-in provider: each query's measure taken of the new version's pods (and,
// for the ready ratio, the old version's), held to its limits, and said in words — which measure,
// its value, the limit it broke or kept, and where (the pods and containers). Pure, so the words a
// deployment's log shows are the words tested.
import {
  type AnalysisQuery,
  BUILTIN_MEASURES,
  type BuiltinMeasure,
} from '../../deployment-file/analysis-section.ts';
import { holdToLimits } from './limits.ts';
import type { PodHealth } from './pod-health.ts';

export interface VersionHealth {
  pods: PodHealth[];
  /** Warning events about the version's pods, as `pod: reason: message`. */
  warnings: string[];
}

export interface QueryResult {
  query: string;
  measure: BuiltinMeasure;
  value: number;
  passed: boolean;
  /** `crashLoops 2 > upperLimit 0 (potato-x/web, potato-y/web)` */
  words: string;
}

export interface Judgment {
  passed: boolean;
  results: QueryResult[];
}

const MAX_NAMED = 3;

function named(where: readonly string[]): string {
  if (where.length === 0) return '';
  const shown = where.slice(0, MAX_NAMED).join(', ');
  return ` (${shown}${where.length > MAX_NAMED ? `, ${where.length - MAX_NAMED} more` : ''})`;
}

function readyShare(pods: readonly PodHealth[]): number {
  return pods.length === 0 ? 0 : pods.filter((p) => p.ready).length / pods.length;
}

function measure(
  name: BuiltinMeasure,
  current: VersionHealth,
  previous: VersionHealth | undefined,
): { value: number; where: string[] } {
  const pods = current.pods;
  switch (name) {
    case 'restarts':
      return {
        value: pods.reduce((sum, p) => sum + p.restarts, 0),
        where: pods.filter((p) => p.restarts > 0).map((p) => `${p.name}: ${p.restarts}`),
      };
    case 'oomKills': {
      const where = pods.flatMap((p) => p.oomKilled);
      return { value: where.length, where };
    }
    case 'crashLoops': {
      const where = pods.flatMap((p) => p.crashLooping);
      return { value: where.length, where };
    }
    case 'readyRatio': {
      const share = readyShare(pods);
      // Held against the old version's share: a version no worse than the one it replaces passes.
      const before = previous === undefined || previous.pods.length === 0 ? 1 : readyShare(previous.pods);
      const value = before === 0 ? (share > 0 ? 1 : 0) : Math.min(share / before, 1);
      const ready = pods.filter((p) => p.ready).length;
      return {
        value: Math.round(value * 100) / 100,
        where: [
          `${ready} of ${pods.length} new pods ready${
            previous === undefined
              ? ''
              : `, ${previous.pods.filter((p) => p.ready).length} of ${previous.pods.length} old`
          }`,
        ],
      };
    }
    case 'warningEvents':
      return { value: current.warnings.length, where: current.warnings };
  }
}

export function judge(
  queries: ReadonlyArray<
    Pick<AnalysisQuery, 'name' | 'upperLimit' | 'lowerLimit'> & { measure: BuiltinMeasure }
  >,
  current: VersionHealth,
  previous: VersionHealth | undefined,
): Judgment {
  const results = queries.map((query): QueryResult => {
    const defaults: { upperLimit?: number; lowerLimit?: number } = BUILTIN_MEASURES[query.measure];
    const upper = query.upperLimit ?? (query.lowerLimit === undefined ? defaults.upperLimit : undefined);
    const lower = query.lowerLimit ?? (query.upperLimit === undefined ? defaults.lowerLimit : undefined);
    const { value, where } = measure(query.measure, current, previous);
    const label = query.name === query.measure ? query.name : `${query.name} (${query.measure})`;
    const verdict = holdToLimits(label, value, { upperLimit: upper, lowerLimit: lower }, named(where));
    return { query: query.name, measure: query.measure, value, ...verdict };
  });
  return { passed: results.every((r) => r.passed), results };
}
