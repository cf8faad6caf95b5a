// The Grafana dashboard the chart ships (helm/orch-agent/dashboards/orch-agent.json) against the
// metrics the agent really exports (createAgentMetrics on a fresh registry): every series a panel
// queries exists, and every orch_agent_ metric has a panel, so a metric added later without one, or
// renamed under a panel, fails here rather than on an operator's empty graph.
import { readFileSync } from 'node:fs';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createAgentMetrics } from '../../../src/agent/observability/agent-metrics.ts';
import { isRecord } from '../../../src/lib/is-record.ts';

const dashboard: unknown = JSON.parse(
  readFileSync(new URL('../../../helm/orch-agent/dashboards/orch-agent.json', import.meta.url), 'utf8'),
);

interface Panel {
  id: number;
  title: string;
  exprs: string[];
}

function panels(): Panel[] {
  if (!isRecord(dashboard) || !Array.isArray(dashboard.panels)) throw new Error('no panels in the dashboard');
  return dashboard.panels.filter(isRecord).map((panel) => ({
    id: Number(panel.id),
    title: String(panel.title),
    exprs: (Array.isArray(panel.targets) ? panel.targets : [])
      .filter(isRecord)
      .map((target) => String(target.expr)),
  }));
}

/** The metric names the agent exports, histograms by their base name. */
async function exported(): Promise<Set<string>> {
  const registry = new Registry();
  createAgentMetrics(registry, { activeWatches: () => 0, lastEvents: () => [] });
  return new Set((await registry.getMetricsAsJSON()).map((metric) => metric.name));
}

/** Series names an expression reads, with a histogram's _bucket/_sum/_count folded to its name. */
function seriesOf(expr: string): string[] {
  return [...expr.matchAll(/\b((?:orch_agent|process|nodejs)_[a-z0-9_]+)\b/g)].map(([, name]) =>
    (name ?? '').replace(/_(bucket|sum|count)$/, ''),
  );
}

describe('Grafana dashboard', () => {
  it('every series a panel queries is a metric the agent exports', async () => {
    const names = await exported();
    const unknown = panels().flatMap((panel) =>
      panel.exprs
        .flatMap(seriesOf)
        .filter((name) => !names.has(name))
        .map((name) => `${panel.title}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it('every orch_agent_ metric has a panel', async () => {
    const shown = new Set(panels().flatMap((panel) => panel.exprs.flatMap(seriesOf)));
    const missing = [...(await exported())].filter(
      (name) => name.startsWith('orch_agent_') && !shown.has(name),
    );
    expect(missing).toEqual([]);
  });

  it('panel ids are unique and every panel queries something', () => {
    const all = panels();
    expect(new Set(all.map((panel) => panel.id)).size).toBe(all.length);
    expect(all.filter((panel) => panel.exprs.length === 0).map((panel) => panel.title)).toEqual([]);
  });
});
