// Nothing lost when the cluster side fails under a running system (issue 17): etcd compacts the
// history the agent would resume from, the agent's watches are cut while etcd compacts, the API server
// is SIGKILLed and restarted. `cloudctl serve` on PostgreSQL and `orch-agent run` as real processes,
// against a private cluster without the watch cache (every watch reaches etcd, so a compaction is
// felt at once), the agent reaching the API server through a TCP proxy that can cut it off. After
// each fault, cloudctl's table must hold exactly what the API server lists, resourceVersions
// included; the time that takes is reported against the 10 s target, and the bound asserted is wider
// for a shared 2-core machine. The scenarios run in order on the same objects.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CloudctlDatabase, openCloudctlDatabase } from '../../src/cloudctl/index.ts';
import { type Cluster, startCluster } from '../cluster/index.ts';
import { writeKubeconfig } from '../cluster/kubeconfig.ts';
import { ConfigMapChurn } from '../support/config-map-churn.ts';
import {
  awaitConvergence,
  clusterSource,
  databaseSource,
  describeDrift,
  driftBetween,
} from '../support/convergence.ts';
import { type PostgresServer, startPostgres } from '../support/postgres-server.ts';
import { TestSystem } from '../support/processes.ts';
import { startTcpFaultProxy, type TcpFaultProxy } from '../support/tcp-fault-proxy.ts';

const NS = 'cluster-faults';
const ACCOUNT = 'cluster-faults';
const APPLICATION = 'clusterfaults';
const TOKENS = { agent: 'agent-token-faults-3d9c', ops: 'ops-token-faults-e071' };
/** The target of issue 17; the assertion allows three times as much on a loaded machine. */
const TARGET_MS = 10_000;

let dir: string;
let cluster: Cluster;
let postgres: PostgresServer;
let db: Kysely<CloudctlDatabase>;
/** Between the agent and the API server. */
let proxy: TcpFaultProxy;
let system: TestSystem;
let churn: ConfigMapChurn;

const clusterSide = () =>
  clusterSource(cluster.client, [{ kind: 'ConfigMap', path: `/api/v1/namespaces/${NS}/configmaps` }]);
const storedSide = () => databaseSource(db, ACCOUNT, [NS]);

/** Polls until cloudctl's table equals the API server's list; fails naming every differing object. */
const storeMatchesCluster = (limitMs: number) =>
  awaitConvergence({ cluster: clusterSide(), stored: storedSide() }, { limitMs });

/** What differs now between the table and the API server. */
async function driftNow() {
  const inCluster = await clusterSide()();
  return driftBetween(inCluster, await storedSide()());
}

/** How many lines of the agent's log (JSON) `matches`. */
function agentLogLines(matches: (entry: { msg?: string; reason?: string }) => boolean): number {
  let count = 0;
  for (const line of (system.agent?.output() ?? '').split('\n')) {
    if (line.startsWith('{') && matches(JSON.parse(line))) count++;
  }
  return count;
}

/** Times a scope listed again because its version was compacted away (410). */
const relistsAfterGone = () => agentLogLines((e) => e.msg === 'watch relisted' && e.reason === '410');
/** Times a scope's watch or list failed and was retried after a backoff (the first of each outage). */
const watchFailures = () => agentLogLines((e) => /^(watch|list) failed; retrying/.test(e.msg ?? ''));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cluster-faults-'));
  [cluster, postgres] = await Promise.all([startCluster({ watchCache: false, nodes: 0 }), startPostgres()]);
  const server = new URL(cluster.server);
  proxy = await startTcpFaultProxy({ host: server.hostname, port: Number(server.port) });
  // The API server's certificate names 127.0.0.1, so TLS holds through the proxy's port.
  const agentKubeconfig = join(dir, 'agent-kubeconfig');
  await writeKubeconfig(agentKubeconfig, {
    server: `https://${proxy.address}`,
    ca: cluster.ca,
    token: cluster.adminToken,
    name: 'through-proxy',
  });
  system = await TestSystem.startCloudctl({
    dir,
    databaseUrl: postgres.url,
    agent: { id: 'cluster-faults', token: TOKENS.agent },
    users: [{ name: 'olga', token: TOKENS.ops, roles: ['ops'] }],
    account: {
      name: ACCOUNT,
      kubeconfig: agentKubeconfig,
      namespaces: [NS],
      kinds: ['configMap'],
      read: ['ops'],
      write: ['ops'],
    },
  });
  db = await openCloudctlDatabase({ kind: 'postgres', url: postgres.url });
  await cluster.client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  await system.startAgent();
  churn = new ConfigMapChurn(cluster.client, NS, APPLICATION);
  await churn.burst('start', 200, { parallel: 8 });
  await storeMatchesCluster(60_000);
}, 240_000);

afterAll(async () => {
  await system?.stop();
  await db?.destroy();
  await proxy?.close();
  await Promise.all([cluster?.stop(), postgres?.stop()]);
  await rm(dir, { recursive: true, force: true });
});

describe('etcd compaction', () => {
  it('while the agent is down: its resume version is gone, it relists, and objects deleted meanwhile are removed', async () => {
    await system.killAgent();
    // 30 creates, 30 updates and 30 deletes the agent never sees as events.
    await churn.mixedChanges('gap', 30);
    await cluster.compactEtcd();
    const before = await driftNow();
    expect(before.ghost, describeDrift(before)).toHaveLength(30);
    expect(before.lost, describeDrift(before)).toHaveLength(30);

    const restartedAt = Date.now();
    await system.startAgent();
    await storeMatchesCluster(3 * TARGET_MS);
    const convergedMs = Date.now() - restartedAt;
    // The version it resumed from was compacted away: the watch got 410 and the scope listed again.
    expect(relistsAfterGone()).toBeGreaterThanOrEqual(1);
    console.info(
      `etcd compaction while the agent was down: ${churn.live.length} objects converged ${convergedMs} ms after the agent's restart (target ${TARGET_MS} ms)`,
    );
    expect(convergedMs).toBeLessThan(3 * TARGET_MS);
  }, 120_000);

  it('while the agent watches: deletes around it arrive, and watches cut meanwhile relist and remove what they missed', async () => {
    // A watch that is open and caught up is not disturbed by a compaction: deletes before and after
    // it arrive as events.
    const live = churn.live;
    await Promise.all(live.slice(0, 10).map((name) => churn.delete(name)));
    await cluster.compactEtcd();
    await Promise.all(live.slice(10, 20).map((name) => churn.delete(name)));
    await storeMatchesCluster(3 * TARGET_MS);

    // The agent's connections to the API server are cut and stay refused while objects change, etcd
    // compacts, and more are deleted: when they are back, every watch resumes from a compacted
    // version.
    const relistsBefore = relistsAfterGone();
    proxy.partition();
    await churn.mixedChanges('cut', 20);
    await cluster.compactEtcd();
    await Promise.all(live.slice(60, 70).map((name) => churn.delete(name)));
    const before = await driftNow();
    expect(before.ghost, describeDrift(before)).toHaveLength(30);

    const healedAt = Date.now();
    proxy.heal();
    await storeMatchesCluster(3 * TARGET_MS);
    const convergedMs = Date.now() - healedAt;
    expect(relistsAfterGone()).toBeGreaterThan(relistsBefore);
    console.info(
      `etcd compaction while the agent's watches were cut: ${churn.live.length} objects converged ${convergedMs} ms after the network came back (target ${TARGET_MS} ms)`,
    );
    expect(convergedMs).toBeLessThan(3 * TARGET_MS);
  }, 120_000);
});

describe('the API server SIGKILLed and restarted', () => {
  it('the agent keeps running and converges on changes made up to the kill and after the restart', async () => {
    const agent = system.agent;
    const failuresBefore = watchFailures();
    // The kill lands right after a burst, while the agent may still be taking its events in.
    await churn.burst('kill', 100, { parallel: 8 });
    await cluster.restartApiServer({ signal: 'SIGKILL' });
    const backAt = Date.now();
    await churn.mixedChanges('after', 20);
    await storeMatchesCluster(3 * TARGET_MS);
    const convergedMs = Date.now() - backAt;
    // The agent felt the outage, and the process started before the kill is still the one running.
    expect(watchFailures()).toBeGreaterThan(failuresBefore);
    expect(agent?.child.exitCode).toBeNull();
    expect(agent?.child.signalCode).toBeNull();
    console.info(
      `API server SIGKILL: ${churn.live.length} objects converged ${convergedMs} ms after it was back (target ${TARGET_MS} ms)`,
    );
    expect(convergedMs).toBeLessThan(3 * TARGET_MS);
  }, 120_000);
});
