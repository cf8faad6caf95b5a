// What ties `trafficManagement` to the rest of the file: its targets exist; a mesh (smi, istio)
// steers only canary targets and `kubernetes` only blue/green ones; a target gets one active Service,
// named in its strategy or in a kubernetes entry and never differently in both; one root Service or
// VirtualService is steered once per target. Checked on the raw file, beside the schema, so one run
// reports everything.
import { nearest } from '../../../lib/did-you-mean.ts';
import { isRecord } from '../../../lib/is-record.ts';
import type { KeyPath } from '../../../lib/yaml-source.ts';
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

const FITS: Record<'smi' | 'istio' | 'kubernetes', { kind: 'canary' | 'blueGreen'; instead: string }> = {
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

export function trafficReferences(raw: Record<string, unknown>): Finding[] {
  const findings: Finding[] = [];
  const targets = rawTargets(raw);
  const targetNames = [...targets.keys()];
  /** Per target: its first kubernetes entry's path and value, and the names steered so far. */
  const kubernetesOf = new Map<string, { path: KeyPath; entry: Record<string, unknown> }>();
  const steered = new Map<string, string>();
  const entries = Array.isArray(raw.trafficManagement) ? raw.trafficManagement : [];

  entries.forEach((entry, i) => {
    if (!isRecord(entry)) return;
    const base: KeyPath = ['trafficManagement', i];
    let covered = targetNames;
    if (Array.isArray(entry.targets)) {
      covered = [];
      entry.targets.forEach((name, j) => {
        if (typeof name !== 'string') return;
        if (targets.has(name)) covered.push(name);
        else {
          const near = nearest(name, targetNames);
          findings.push({
            path: [...base, 'targets', j],
            at: 'value',
            message: `no target '${name}' (defined: ${targetNames.join(', ') || 'none'})${near === undefined ? '' : `; did you mean '${near}'?`}`,
          });
        }
      });
    }
    for (const manager of ['smi', 'istio', 'kubernetes'] as const) {
      const list = entry[manager];
      if (!Array.isArray(list)) continue;
      const { kind, instead } = FITS[manager];
      const misfits = covered.filter((t) => {
        const k = targets.get(t)?.kind;
        return k !== undefined && k !== kind;
      });
      if (misfits.length > 0)
        findings.push({
          path: [...base, manager],
          at: 'key',
          message: `${manager} steers ${KIND_WORDS[kind]} targets only; ${misfits.map((t) => `target '${t}' uses the ${KIND_WORDS[targets.get(t)?.kind ?? kind]} strategy '${targets.get(t)?.strategyName}'`).join(', ')}: ${instead}`,
        });
      list.forEach((item, k) => {
        for (const t of covered) {
          if (manager === 'kubernetes') {
            const first = kubernetesOf.get(t);
            if (first === undefined && isRecord(item))
              kubernetesOf.set(t, { path: [...base, manager, k], entry: item });
            else if (first !== undefined)
              findings.push({
                path: [...base, manager, k],
                at: 'value',
                message: `target '${t}' already gets its Services from trafficManagement${first.path
                  .slice(1)
                  .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
                  .join('')}: a target has one active Service`,
              });
            continue;
          }
          const name = steeredName(manager, item);
          if (name === undefined) continue;
          const key = `${t}\u0000${manager}\u0000${name[1]}`;
          const where = `trafficManagement[${i}].${manager}[${k}]`;
          const before = steered.get(key);
          if (before === undefined) steered.set(key, where);
          else
            findings.push({
              path: [...base, manager, k, ...name[0]],
              at: 'value',
              message: `${name[1]} of target '${t}' is already steered by ${before}: one weight per step needs one writer`,
            });
        }
      });
    }
  });

  const lacking = new Map<string, string[]>();
  for (const [name, target] of targets) {
    if (target.kind !== 'blueGreen' || target.strategyName === undefined) continue;
    const fromEntry = kubernetesOf.get(name);
    for (const field of ['activeService', 'previewService'] as const) {
      const own = target.blueGreen[field];
      const theirs = fromEntry?.entry[field];
      if (typeof own === 'string' && typeof theirs === 'string' && own !== theirs)
        findings.push({
          path: [...(fromEntry?.path ?? []), field],
          at: 'value',
          message: `target '${name}': ${field} '${theirs}' here, but its strategy names '${own}' (strategies.${target.strategyName}.blueGreen.${field}): name it in one place`,
        });
    }
    if (fromEntry === undefined)
      lacking.set(target.strategyName, [...(lacking.get(target.strategyName) ?? []), name]);
  }
  // A blue/green strategy without its own activeService needs one for every target that uses it, and
  // one used by no target is still checked as written (it names no Service anywhere).
  for (const [strategy, value] of Object.entries(isRecord(raw.strategies) ? raw.strategies : {})) {
    if (!isRecord(value) || !isRecord(value.blueGreen) || value.blueGreen.activeService !== undefined)
      continue;
    const users = [...targets].filter(([, t]) => t.strategyName === strategy).map(([n]) => n);
    const without = lacking.get(strategy) ?? [];
    if (users.length > 0 && without.length === 0) continue;
    findings.push({
      path: ['strategies', strategy, 'blueGreen', 'activeService'],
      at: 'value',
      message:
        without.length === 0
          ? 'required, expected string (or a trafficManagement kubernetes entry for each target that uses it)'
          : `required, expected string (or a trafficManagement kubernetes entry naming the activeService of ${without.map((n) => `target '${n}'`).join(', ')})`,
    });
  }
  return findings;
}
