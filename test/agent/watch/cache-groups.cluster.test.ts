// orchestrator.cacheGroupSize and cacheGroupDelayMs (variant B; spec: "accounts per group when
// delaying watcher initialization" / "wait between groups when initializing watchers"): five accounts
// on the shared cluster start in groups of two, 1.5 s apart. The agent's /watches registry says when
// each scope started (its `startedAt`, stamped by the agent as the account's first list begins): the
// accounts start group by group, in config order, each group at least the delay after the last account
// of the one before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { createNamespace, deleteObject, msUntil, type RunningAgent, startAgent } from './watch-fixture.ts';

const NS = 'cache-groups';
const ACCOUNTS = ['g0', 'g1', 'g2', 'g3', 'g4'];
const GROUP_SIZE = 2;
const DELAY_MS = 1500;
/**
 * The start times are the agent's wall clock in whole milliseconds, and Node may fire a timer up to a
 * millisecond before that clock says its delay is up.
 */
const CLOCK_SLACK_MS = 2;

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
    await msUntil(
      'every account watching',
      () => new Set(running.runtime.watches.list().map((w) => w.account)).size === ACCOUNTS.length,
      30_000,
    );
    const firstSeen = new Map<string, number>();
    for (const watch of running.runtime.watches.list()) {
      const started = Date.parse(watch.startedAt);
      firstSeen.set(watch.account, Math.min(started, firstSeen.get(watch.account) ?? started));
    }
    const groups: number[][] = [];
    for (let i = 0; i < ACCOUNTS.length; i += GROUP_SIZE) {
      groups.push(ACCOUNTS.slice(i, i + GROUP_SIZE).map((name) => firstSeen.get(name) ?? Number.NaN));
    }
    const t0 = Math.min(...(groups[0] ?? []));
    console.info(
      `first scope of each account started, ms after the first: ${ACCOUNTS.map((a) => `${a} ${Math.round((firstSeen.get(a) ?? 0) - t0)}`).join(', ')}`,
    );
    for (let g = 1; g < groups.length; g++) {
      const previousLast = Math.max(...(groups[g - 1] ?? []));
      const first = Math.min(...(groups[g] ?? []));
      // Every account of a group starts at least the delay after every account of the group before it.
      expect(first - previousLast, `gap before group ${g}`).toBeGreaterThanOrEqual(DELAY_MS - CLOCK_SLACK_MS);
    }
  });
});
