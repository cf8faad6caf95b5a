// Issue 5, acceptance 5: the task budget bounds how many lists run at once, measured on the agent's
// own budget (its peak), while every scope still syncs. 20 namespaces × 2 kinds = 40 list tasks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import {
  createNamespace,
  deleteObject,
  msUntilReady,
  type RunningAgent,
  startAgent,
  storedNames,
} from './watch-fixture.ts';

const NAMESPACES = Array.from({ length: 20 }, (_, i) => `budget-${i}`);
let cp: TestControlPlane;
let admin: ApiClient;
let agent: RunningAgent | undefined;

beforeAll(async () => {
  admin = sharedClusterClient();
  cp = await startTestControlPlane();
  await Promise.all(NAMESPACES.map((ns) => createNamespace(admin, ns, ['cm'])));
});

afterAll(async () => {
  await agent?.stop();
  await cp?.close();
  await Promise.all(NAMESPACES.map((ns) => deleteObject(admin, `/api/v1/namespaces/${ns}`)));
  await admin?.close();
});

async function runWithBudget(account: string, tasks: { totalBudget: number; budgetPerAccount: number }) {
  agent = await startAgent(cp, {
    tasks: { ...tasks, queueCheckFrequencyMs: 50 },
    orchestrator: {
      accounts: [
        {
          name: account,
          orchConfigFile: sharedCluster().kubeconfigPath,
          namespaces: NAMESPACES,
          kinds: ['configMap', 'secret'],
        },
      ],
    },
  });
  const readyMs = await msUntilReady(agent, 20_000);
  const { runtime } = agent;
  const scopes = runtime.watches.list().filter((w) => w.account === account);
  const result = {
    peak: runtime.watch.budget.peak,
    scopes: scopes.length,
    watching: scopes.filter((w) => w.state === 'watching').length,
    readyMs,
  };
  await agent.stop();
  agent = undefined;
  return result;
}

describe('the task budget', () => {
  it('totalBudget 3: at most 3 of the 40 lists run at once, and every scope syncs', async () => {
    const { peak, scopes, watching, readyMs } = await runWithBudget('budget-total', {
      totalBudget: 3,
      budgetPerAccount: 0,
    });
    expect(scopes).toBe(40);
    expect(watching).toBe(40);
    // Reaching the budget shows the lists did overlap: the bound was tested, not avoided.
    expect(peak).toBe(3);
    expect(await storedNames(cp, 'budget-total', 'ConfigMap')).toEqual(
      NAMESPACES.map((ns) => `${ns}/cm`).sort(),
    );
    console.info(
      `budget: totalBudget 3 → peak ${peak} of ${scopes} tasks; ready in ${Math.round(readyMs)} ms`,
    );
  });

  it('budgetPerAccount 2: at most 2 of the account’s 40 lists run at once, and every scope syncs', async () => {
    const { peak, scopes, watching, readyMs } = await runWithBudget('budget-account', {
      totalBudget: 0,
      budgetPerAccount: 2,
    });
    expect(scopes).toBe(40);
    expect(watching).toBe(40);
    expect(peak).toBe(2);
    expect(await storedNames(cp, 'budget-account', 'ConfigMap')).toEqual(
      NAMESPACES.map((ns) => `${ns}/cm`).sort(),
    );
    console.info(
      `budget: budgetPerAccount 2 → peak ${peak} of ${scopes} tasks; ready in ${Math.round(readyMs)} ms`,
    );
  });
});
