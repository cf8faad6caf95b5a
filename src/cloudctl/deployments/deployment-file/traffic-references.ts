// What ties `trafficManagement` to the rest of the file: its targets exist; a mesh (smi, istio)
// steers only canary targets and `kubernetes` only blue/green ones; a target gets one active Service,
// named in its strategy or in a kubernetes entry and never differently in both; one root Service or
// VirtualService is steered once per target. Checked on the raw file, beside the schema, so one run
// reports everything.
import { nearest } from '../../../lib/did-you-mean.ts';
import { isRecord } from '../../../lib/is-record.ts';
import { formatKeyPath, type KeyPath } from '../../../lib/yaml-source.ts';
import type { Finding } from './finding.ts';

type Kind = 'canary' | 'blueGreen' | undefined;

interface RawTarget {
  strategyName: string | undefined;
  kind: Kind;
  blueGreen: Record<string, unknown>;
}

function rawTargets(raw: Record<string, unknown>): Map<string, RawTarget> {
  const strategies = isRecord(raw.strategies) ? raw.strategies : {};
  const out = new Map<string, RawTarget>();
  for (const [name, target] of Object.entries(isRecord(raw.targets) ? raw.targets : {})) {
    const strategyName =
      isRecord(target) && typeof target.strategy === 'string' ? target.strategy : undefined;
    const strategy = strategyName === undefined ? undefined : strategies[strategyName];
    const kind: Kind = !isRecord(strategy)
      ? undefined
      : isRecord(strategy.canary)
        ? 'canary'
        : isRecord(strategy.blueGreen)
          ? 'blueGreen'
          : undefined;
    const blueGreen = isRecord(strategy) && isRecord(strategy.blueGreen) ? strategy.blueGreen : {};
    out.set(name, { strategyName, kind, blueGreen });
  }
  return out;
}

const MANAGERS = ['smi', 'istio', 'kubernetes'] as const;
type Manager = (typeof MANAGERS)[number];

const FITS: Record<Manager, { kind: 'canary' | 'blueGreen'; instead: string }> = {
  smi: { kind: 'canary', instead: "a blue/green target's Services go in a 'kubernetes' entry" },
  istio: { kind: 'canary', instead: "a blue/green target's Services go in a 'kubernetes' entry" },
  kubernetes: { kind: 'blueGreen', instead: "a canary's weights go to a mesh through 'smi' or 'istio'" },
};
const KIND_WORDS = { canary: 'canary', blueGreen: 'blue/green' } as const;

/** A name an entry steers, unique per target: `root` of an smi entry, the VirtualService of istio. */
function steeredName(manager: 'smi' | 'istio', item: unknown): [KeyPath, string] | undefined {
  if (!isRecord(item)) return undefined;
  if (manager === 'smi')
    return typeof item.rootServiceName === 'string' ? [['rootServiceName'], item.rootServiceName] : undefined;
  const vs = item.virtualService;
  return isRecord(vs) && typeof vs.name === 'string' ? [['virtualService', 'name'], vs.name] : undefined;
}

/** The checks of one file, gathering what entries claim per target as it goes through them. */
class TrafficCheck {
  readonly findings: Finding[] = [];
  readonly targets: Map<string, RawTarget>;
  readonly targetNames: string[];
  /** Per target: its first kubernetes entry's path and value. */
  readonly kubernetesOf = new Map<string, { path: KeyPath; entry: Record<string, unknown> }>();
  /** Per target, manager and steered name: the entry that steers it first. */
  readonly steered = new Map<string, string>();

  constructor(raw: Record<string, unknown>) {
    this.targets = rawTargets(raw);
    this.targetNames = [...this.targets.keys()];
  }

  /** The targets an entry names that exist (every target when it names none). */
  covered(entry: Record<string, unknown>, base: KeyPath): string[] {
    if (!Array.isArray(entry.targets)) return this.targetNames;
    const covered: string[] = [];
    entry.targets.forEach((name, j) => {
      if (typeof name !== 'string') return;
      if (this.targets.has(name)) {
        covered.push(name);
        return;
      }
      const near = nearest(name, this.targetNames);
      this.findings.push({
        path: [...base, 'targets', j],
        at: 'value',
        message: `no target '${name}' (defined: ${this.targetNames.join(', ') || 'none'})${near === undefined ? '' : `; did you mean '${near}'?`}`,
      });
    });
    return covered;
  }

  /** A manager's list steers targets of its strategy kind only. */
  fits(manager: Manager, covered: string[], base: KeyPath): void {
    const { kind, instead } = FITS[manager];
    const misfits = covered.flatMap((t) => {
      const target = this.targets.get(t);
      return target?.kind === undefined || target.kind === kind ? [] : [[t, target] as const];
    });
    if (misfits.length > 0)
      this.findings.push({
        path: [...base, manager],
        at: 'key',
        message: `${manager} steers ${KIND_WORDS[kind]} targets only; ${misfits.map(([t, target]) => `target '${t}' uses the ${KIND_WORDS[target.kind ?? kind]} strategy '${target.strategyName}'`).join(', ')}: ${instead}`,
      });
  }

  /** An item of a manager's list, for one target: the first of its kind there, or a second writer. */
  claim(manager: Manager, item: unknown, target: string, path: KeyPath): void {
    if (manager === 'kubernetes') {
      const first = this.kubernetesOf.get(target);
      if (first === undefined && isRecord(item)) this.kubernetesOf.set(target, { path, entry: item });
      else if (first !== undefined)
        this.findings.push({
          path,
          at: 'value',
          message: `target '${target}' already gets its Services from ${formatKeyPath(first.path)}: a target has one active Service`,
        });
      return;
    }
    const name = steeredName(manager, item);
    if (name === undefined) return;
    const key = `${target}\u0000${manager}\u0000${name[1]}`;
    const before = this.steered.get(key);
    if (before === undefined) this.steered.set(key, formatKeyPath(path));
    else
      this.findings.push({
        path: [...path, ...name[0]],
        at: 'value',
        message: `${name[1]} of target '${target}' is already steered by ${before}: one weight per step needs one writer`,
      });
  }

  /** A blue/green target's Services, named in its strategy or its kubernetes entry, never differently. */
  blueGreenServices(raw: Record<string, unknown>): void {
    const lacking = new Map<string, string[]>();
    for (const [name, target] of this.targets) {
      if (target.kind !== 'blueGreen' || target.strategyName === undefined) continue;
      const fromEntry = this.kubernetesOf.get(name);
      for (const field of ['activeService', 'previewService'] as const) {
        const own = target.blueGreen[field];
        const theirs = fromEntry?.entry[field];
        if (typeof own === 'string' && typeof theirs === 'string' && own !== theirs)
          this.findings.push({
            path: [...(fromEntry?.path ?? []), field],
            at: 'value',
            message: `target '${name}': ${field} '${theirs}' here, but its strategy names '${own}' (strategies.${target.strategyName}.blueGreen.${field}): name it in one place`,
          });
      }
      if (fromEntry === undefined)
        lacking.set(target.strategyName, [...(lacking.get(target.strategyName) ?? []), name]);
    }
    // A blue/green strategy without its own activeService needs one for every target that uses it,
    // and one used by no target is still checked as written (it names no Service anywhere).
    for (const [strategy, value] of Object.entries(isRecord(raw.strategies) ? raw.strategies : {})) {
      if (!isRecord(value) || !isRecord(value.blueGreen) || value.blueGreen.activeService !== undefined)
        continue;
      const used = [...this.targets.values()].some((t) => t.strategyName === strategy);
      const without = lacking.get(strategy) ?? [];
      if (used && without.length === 0) continue;
      this.findings.push({
        path: ['strategies', strategy, 'blueGreen', 'activeService'],
        at: 'value',
        message:
          without.length === 0
            ? 'required, expected string (or a trafficManagement kubernetes entry for each target that uses it)'
            : `required, expected string (or a trafficManagement kubernetes entry naming the activeService of ${without.map((n) => `target '${n}'`).join(', ')})`,
      });
    }
  }
}

export function trafficReferences(raw: Record<string, unknown>): Finding[] {
  const check = new TrafficCheck(raw);
  const entries = Array.isArray(raw.trafficManagement) ? raw.trafficManagement : [];
  entries.forEach((entry, i) => {
    if (!isRecord(entry)) return;
    const base: KeyPath = ['trafficManagement', i];
    const covered = check.covered(entry, base);
    for (const manager of MANAGERS) {
      const list = entry[manager];
      if (!Array.isArray(list)) continue;
      check.fits(manager, covered, base);
      list.forEach((item, k) => {
        for (const target of covered) check.claim(manager, item, target, [...base, manager, k]);
      });
    }
  });
  check.blueGreenServices(raw);
  return check.findings;
}
