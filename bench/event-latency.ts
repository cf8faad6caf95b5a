// bench/event-latency: how long a change takes from the API write to cloudctl's store, under
// sustained update load, beside the delay a client-go informer sees from the same writes to its
// event handler, measured at once in the same run. Usage:
//   node bench/event-latency.ts [--rates 1000,5000] [--seconds 20] [--objects 2000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startCluster } from '../test/cluster/cluster.ts';
import { ACCOUNT, startAgentProcess, startBenchControlPlane, waitFor, within } from './lib/bench-system.ts';
import { namespaceName, populate } from './lib/populate.ts';
import { processStats } from './lib/process-stats.ts';
import { observeCommits } from './lib/store-probe.ts';
import { fixed, mib, percentile, ratio, table } from './lib/summary.ts';
import { LATENCY_KEY, runLoad } from './lib/update-load.ts';
import { buildInformerPeer, startInformerPeer } from './peers/informer-peer.ts';

const { values } = parseArgs({
  options: {
    rates: { type: 'string', default: '1000,5000' },
    seconds: { type: 'string', default: '20' },
    objects: { type: 'string', default: '2000' },
  },
});
const rates = values.rates.split(',').map(Number);
const seconds = Number(values.seconds);
const objects = Number(values.objects);
const NAMESPACES = 20;
const log = (line: string) => console.error(`[event-latency] ${line}`);
const STAMP = new RegExp(`"${LATENCY_KEY}":"([0-9.]+)"`);

const dir = mkdtempSync(join(tmpdir(), 'orch-agent-bench-'));
const cluster = await startCluster({ nodes: 1, log });
const controlPlane = await startBenchControlPlane(dir);
try {
  const binary = await buildInformerPeer();
  await populate(
    { namespaces: NAMESPACES, configMaps: objects, pods: 0 },
    { client: cluster.client, nodes: [], log },
  );
  const targets = Array.from({ length: objects }, (_, i) => `${namespaceName(i % NAMESPACES)}/cm-${i}`);

  // What cloudctl committed, and when: each stored ConfigMap carrying a stamp gives one delay.
  const delays: number[] = [];
  const cache = controlPlane.plane.store.cache;
  observeCommits(cache, (changes, committedAtMs) => {
    for (const change of changes) {
      if (change.type !== 'upsert' || change.kind !== 'ConfigMap') continue;
      const stamp = STAMP.exec(change.body)?.[1];
      if (stamp !== undefined) delays.push(committedAtMs - Number(stamp));
    }
  });

  const agent = await startAgentProcess({
    dir,
    controlPlane,
    kubeconfigPath: cluster.kubeconfigPath,
    kinds: ['configMap'],
  });
  const peer = startInformerPeer({
    binary,
    kubeconfig: cluster.kubeconfigPath,
    kinds: ['configmaps'],
    latencyKey: LATENCY_KEY,
  });
  try {
    await waitFor(
      'the initial sync',
      async () => ((await cache.count(ACCOUNT, { kind: 'ConfigMap' })) >= objects ? true : undefined),
      5 * 60_000,
    );
    await within(peer.synced, 5 * 60_000, 'the client-go informer to sync');
    const rows: string[][] = [];
    for (const rate of rates) {
      delays.length = 0;
      await peer.stats(); // clears the peer's samples
      let peakRss = 0;
      const sampler = setInterval(() => {
        peakRss = Math.max(peakRss, processStats(agent.pid).rssBytes);
      }, 250);
      log(`${rate}/s for ${seconds} s over ${objects} ConfigMaps`);
      const load = await runLoad({
        server: cluster.server,
        ca: cluster.ca,
        token: cluster.adminToken,
        targets,
        ratePerSecond: rate,
        seconds,
      });
      await sleep(3000); // let the last writes arrive
      clearInterval(sampler);
      const peerStats = await peer.stats();
      const ours = { p50: percentile(delays, 50), p99: percentile(delays, 99) };
      log(`${rate}/s: ${JSON.stringify(load)}; agent ${delays.length} delays; peer ${peerStats.count}`);
      rows.push([
        String(rate),
        fixed(load.achievedPerSecond, 0),
        `${fixed(load.writeP50Ms)} / ${fixed(load.writeP99Ms)}`,
        `${fixed(ours.p50)} / ${fixed(ours.p99)}`,
        `${fixed(peerStats.p50Ms)} / ${fixed(peerStats.p99Ms)}`,
        ratio(ours.p99, peerStats.p99Ms),
        `${delays.length} / ${peerStats.count}`,
        fixed(mib(peakRss)),
      ]);
    }
    console.log(
      table(
        [
          'offered/s',
          'written/s',
          'API write p50/p99, ms',
          'orch-agent → cloudctl store p50/p99, ms',
          'client-go informer handler p50/p99, ms',
          'p99 ours/peer',
          'changes seen (ours / peer)',
          'agent peak RSS, MiB',
        ],
        rows,
      ),
    );
  } finally {
    await peer.stop();
    await agent.stop();
  }
} finally {
  await controlPlane.close();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
