// Names that tie the sections of a deployment file together: a target's strategy, a step's webhook,
// dependsOn (existing targets, no cycles), a manifest's targets, and every target getting at least
// one manifest. Checked on the raw file, beside the schema, so one run reports everything.
import { nearest } from '../../../lib/did-you-mean.ts';
import { isRecord } from '../../../lib/is-record.ts';
import type { Finding } from './finding.ts';
import { webhookSteps } from './webhook-steps.ts';

function hint(word: string, candidates: Iterable<string>): string {
  const near = nearest(word, candidates);
  return near === undefined ? '' : `; did you mean '${near}'?`;
}

function known(names: ReadonlyArray<string>, what: string): string {
  return names.length === 0 ? `no ${what} is defined` : `defined: ${names.join(', ')}`;
}

function stringsOf(value: unknown): Array<[number, string]> {
  return Array.isArray(value)
    ? value.flatMap((v, i): Array<[number, string]> => (typeof v === 'string' ? [[i, v]] : []))
    : [];
}

/** The first cycle among dependsOn edges, as a closed list of names (a → b → a), if any. */
function findCycle(edges: ReadonlyMap<string, ReadonlyArray<string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...trail.slice(trail.indexOf(node)), node];
    state.set(node, 'open');
    trail.push(node);
    for (const next of edges.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle !== undefined) return cycle;
    }
    trail.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of edges.keys()) {
    const cycle = visit(node);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

/** Each target's strategy and dependsOn name what exists; answers the valid dependsOn edges. */
function targetReferences(
  targets: Record<string, unknown>,
  strategyNames: readonly string[],
  findings: Finding[],
): Map<string, string[]> {
  const targetNames = Object.keys(targets);
  const edges = new Map<string, string[]>();
  for (const [name, target] of Object.entries(targets)) {
    if (!isRecord(target)) continue;
    const { strategy } = target;
    if (typeof strategy === 'string' && strategy !== '' && !strategyNames.includes(strategy))
      findings.push({
        path: ['targets', name, 'strategy'],
        at: 'value',
        message: `no strategy '${strategy}' in strategies (${known(strategyNames, 'strategy')})${hint(strategy, strategyNames)}`,
      });
    const dependsOn = isRecord(target.constraints) ? target.constraints.dependsOn : undefined;
    const valid: string[] = [];
    for (const [index, other] of stringsOf(dependsOn)) {
      const path = ['targets', name, 'constraints', 'dependsOn', index];
      if (other === name)
        findings.push({ path, at: 'value', message: `target '${name}' cannot depend on itself` });
      else if (!targetNames.includes(other))
        findings.push({
          path,
          at: 'value',
          message: `no target '${other}' (${known(targetNames, 'target')})${hint(other, targetNames)}`,
        });
      else valid.push(other);
    }
    edges.set(name, valid);
  }
  return edges;
}

/** Each manifests[].targets names a target, and every target gets a manifest. */
function manifestReferences(
  raw: Record<string, unknown>,
  targetNames: readonly string[],
  findings: Finding[],
): void {
  const served = new Set<string>();
  let everyFilterValid = true;
  if (Array.isArray(raw.manifests))
    raw.manifests.forEach((entry, index) => {
      if (!isRecord(entry)) return;
      if (entry.targets === undefined) {
        for (const name of targetNames) served.add(name);
        return;
      }
      for (const [i, name] of stringsOf(entry.targets)) {
        if (targetNames.includes(name)) served.add(name);
        else {
          everyFilterValid = false;
          findings.push({
            path: ['manifests', index, 'targets', i],
            at: 'value',
            message: `no target '${name}' (${known(targetNames, 'target')})${hint(name, targetNames)}`,
          });
        }
      }
    });
  if (everyFilterValid && Array.isArray(raw.manifests) && raw.manifests.length > 0)
    for (const name of targetNames.filter((t) => !served.has(t)))
      findings.push({
        path: ['targets', name],
        at: 'key',
        message: `target '${name}' gets no manifest: every manifests[].targets leaves it out`,
      });
}

export function crossReferences(raw: Record<string, unknown>): Finding[] {
  const findings: Finding[] = [];
  const targets = isRecord(raw.targets) ? raw.targets : {};
  const strategyNames = isRecord(raw.strategies) ? Object.keys(raw.strategies) : [];
  const webhookNames = Array.isArray(raw.webhooks)
    ? raw.webhooks.flatMap((w) => (isRecord(w) && typeof w.name === 'string' ? [w.name] : []))
    : [];

  const cycle = findCycle(targetReferences(targets, strategyNames, findings));
  if (cycle?.[0] !== undefined)
    findings.push({
      path: ['targets', cycle[0], 'constraints', 'dependsOn'],
      at: 'key',
      message: `targets wait for each other in a cycle, so none would deploy: ${cycle.join(' → ')}`,
    });

  for (const site of webhookSteps(raw)) {
    if (typeof site.name !== 'string' || site.name === '' || webhookNames.includes(site.name)) continue;
    findings.push({
      path: [...site.path, 'name'],
      at: 'value',
      message: `no webhook '${site.name}' in webhooks (${known(webhookNames, 'webhook')})${hint(site.name, webhookNames)}`,
    });
  }

  manifestReferences(raw, Object.keys(targets), findings);
  return findings;
}
