// orchestrator.cacheGroupSize and cacheGroupDelayMs (variant B; spec: "accounts per group when
// delaying watcher initialization" / "wait between groups when initializing watchers"): five accounts
// on the shared cluster start in groups of two, 1.5 s apart. The test watches the agent's /watches
// registry and notes when each account's first scope appears (its first list begins): the accounts
// appear group by group, in config order, each group at least the delay after the one before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { msUntil as pollEvery } from '../in-process-agent.ts';
import { createNamespace, deleteObject, type RunningAgent, startAgent } from './watch-fixture.ts';

const NS = 'cache-groups';
const ACCOUNTS = ['g0', 'g1', 'g2', 'g3', 'g4'];
const GROUP_SIZE = 2;
const DELAY_MS = 1500;
const POLL_MS = 10;
/** How late the poll below may notice a scope; it polls every POLL_MS, on a busy 2-core machine. */
const POLL_SLACK_MS = 150;

let cp: TestControlPlane;
let admin: ApiClient;
let agent: RunningAgent | undefined;

beforeAll(async () => {
  admin = sharedClusterClient();
  cp = await startTestControlPlane();
  await createNamespace(admin, NS, ['seen']);
});

afterAll(async () => {
  await agent?.stop();
  await cp?.close();
  await deleteObject(admin, `/api/v1/namespaces/${NS}`);
  await admin?.close();
});

describe('cacheGroupSize and cacheGroupDelayMs', () => {
  it('accounts start in groups of cacheGroupSize, cacheGroupDelayMs apart, in config order', async () => {
    const running = await startAgent(cp, {
      orchestrator: {
        cacheGroupSize: GROUP_SIZE,
        cacheGroupDelayMs: DELAY_MS,
        accounts: ACCOUNTS.map((name) => ({
          name,
          orchConfigFile: sharedCluster().kubeconfigPath,
          namespaces: [NS],
          kinds: ['configMap'],
        })),
      },
    });
    agent = running;
    const firstSeen = new Map<string, number>();
    // Every POLL_MS, as the slack above assumes (the fixture's msUntil polls every 50 ms).
    await pollEvery(
      () => {
        const now = performance.now();
        for (const watch of running.runtime.watches.list()) {
          if (!firstSeen.has(watch.account)) firstSeen.set(watch.account, now);
        }
        return firstSeen.size === ACCOUNTS.length;
      },
      30_000,
      'every account watching',
      POLL_MS,
    );
    const groups: number[][] = [];
    for (let i = 0; i < ACCOUNTS.length; i += GROUP_SIZE) {
      groups.push(ACCOUNTS.slice(i, i + GROUP_SIZE).map((name) => firstSeen.get(name) ?? Number.NaN));
    }
    const t0 = Math.min(...(groups[0] ?? []));
    console.info(
      `first scope of each account, ms after the first: ${ACCOUNTS.map((a) => `${a} ${Math.round((firstSeen.get(a) ?? 0) - t0)}`).join(', ')}`,
    );
    for (let g = 1; g < groups.length; g++) {
      const previousLast = Math.max(...(groups[g - 1] ?? []));
      const previousFirst = Math.min(...(groups[g - 1] ?? []));
      const first = Math.min(...(groups[g] ?? []));
      // Every account of a group starts after every account of the group before it...
      expect(first, `group ${g} starts after group ${g - 1}`).toBeGreaterThan(previousLast);
      // ...and at least the delay after that group began.
      expect(first - previousFirst, `gap before group ${g}`).toBeGreaterThanOrEqual(DELAY_MS - POLL_SLACK_MS);
    }
  });
});
