// bench/watch-feed: how fast GET /watch delivers a change to many followers while the cluster takes
// a steady stream of writes, beside a client-go informer on the same writes, and what the followers
// cost cloudctl. Each write patches a ConfigMap with its wall-clock time, and the load notes the
// resourceVersion it made; a follower's delay is its receipt of that version minus the write's time
// (API server → agent → cloudctl's store → the feed → the client), the informer's is its event
// handler's, from the same stamp. The same load runs first with no follower, so that
// cloudctl's RSS and CPU per 100 followers are the difference the followers make. Usage:
//   node bench/watch-feed.ts [--clients 200] [--rate 500] [--seconds 20] [--objects 2000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { startCluster } from '../test/cluster/cluster.ts';
import { ACCOUNT, startAgentProcess, waitFor, within } from './lib/bench-system.ts';
import { type CloudctlProcess, startCloudctlProcess } from './lib/cloudctl-process.ts';
import { namespaceName, populate } from './lib/populate.ts';
import { processStats } from './lib/process-stats.ts';
import { fixed, median, mib, percentile, ratio, table } from './lib/summary.ts';
import { LATENCY_KEY, runLoad } from './lib/update-load.ts';
import { deliveryDelays, followWatch } from './lib/watch-clients.ts';
import { buildInformerPeer, type InformerPeer, startInformerPeer } from './peers/informer-peer.ts';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '200' },
    rate: { type: 'string', default: '500' },
    seconds: { type: 'string', default: '20' },
    objects: { type: 'string', default: '2000' },
  },
});
const positive = (name: string, text: string) => {
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`--${name} must be a positive integer, not ${text}`);
  return value;
};
const clients = positive('clients', values.clients);
const rate = positive('rate', values.rate);
const seconds = positive('seconds', values.seconds);
const objects = positive('objects', values.objects);
const NAMESPACES = 20;
const log = (line: string) => console.error(`[watch-feed] ${line}`);
const introspectionSchema = z.array(z.object({ account: z.string(), totalObjects: z.number() }));

/** What one round (a number of followers under the load) measured. */
interface Round {
  followers: number;
  written: number;
  /** Delivery delays of the writes, over all followers. */
  delays: number[];
  /** The `closed` events the followers got. */
  closed: string[];
  peer: { p50Ms: number; p99Ms: number; count: number };
  /** cloudctl's median RSS during the round. */
  rssBytes: number;
  /** cloudctl's CPU time over the round's wall time: cores busy. */
  cpuCores: number;
}

/** The load at `rate` for `seconds`, with `followers` clients on GET /watch and the informer beside. */
async function round(
  followers: number,
  system: { cloudctl: CloudctlProcess; peer: InformerPeer; load: Parameters<typeof runLoad>[0] },
): Promise<Round> {
  const { cloudctl, peer } = system;
  const path = `/watch?account=${ACCOUNT}&kinds=ConfigMap&events=object`;
  const feed =
    followers === 0
      ? undefined
      : await followWatch({ url: `${cloudctl.url}${path}`, token: cloudctl.userToken, clients: followers });
  try {
    feed?.take();
    await peer.stats(); // clears the peer's samples
    // RSS sampled through the load: its median is the steady cost, less noisy than a peak.
    const rss: number[] = [];
    const sampler = setInterval(() => rss.push(processStats(cloudctl.pid).rssBytes), 250);
    const before = { cpu: processStats(cloudctl.pid).cpuSeconds, at: performance.now() };
    log(`${followers} followers; ${rate}/s for ${seconds} s over ${objects} ConfigMaps`);
    const load = await runLoad(system.load);
    await sleep(3000); // let the last writes arrive
    clearInterval(sampler);
    const after = processStats(cloudctl.pid);
    const cpuCores = (after.cpuSeconds - before.cpu) / ((performance.now() - before.at) / 1000);
    const watch = feed?.take() ?? { versions: [], readAt: [], events: 0, closed: [] };
    const delays = deliveryDelays(watch, load.versions ?? []);
    const peerStats = await peer.stats();
    const { versions: _, ...figures } = load;
    log(`${followers} followers: ${JSON.stringify(figures)}; ${watch.events} object events read`);
    for (const closed of watch.closed.slice(0, 3)) log(`a follower was cut off: ${closed}`);
    return {
      followers,
      written: load.achievedPerSecond,
      delays,
      closed: watch.closed,
      peer: peerStats,
      rssBytes: median(rss),
      cpuCores,
    };
  } finally {
    feed?.close();
  }
}

function report(rounds: readonly Round[]): string {
  const base = rounds.find((r) => r.followers === 0);
  const rows = rounds.map((r) => {
    const ours = { p50: percentile(r.delays, 50), p99: percentile(r.delays, 99) };
    const per100 = (value: number, baseline: number | undefined) =>
      r.followers === 0 || baseline === undefined ? '—' : fixed((value - baseline) / (r.followers / 100), 2);
    return [
      String(r.followers),
      fixed(r.written, 0),
      `${fixed(ours.p50)} / ${fixed(ours.p99)}`,
      `${fixed(r.peer.p50Ms)} / ${fixed(r.peer.p99Ms)}`,
      ratio(ours.p99, r.peer.p99Ms),
      `${r.delays.length} / ${r.peer.count * r.followers}`,
      String(r.closed.length),
      fixed(mib(r.rssBytes)),
      fixed(r.cpuCores, 2),
      per100(mib(r.rssBytes), base === undefined ? undefined : mib(base.rssBytes)),
      per100(r.cpuCores, base?.cpuCores),
    ];
  });
  return table(
    [
      'followers',
      'written/s',
      'GET /watch delivery p50/p99, ms',
      'client-go informer handler p50/p99, ms',
      'p99 ours/peer',
      'deliveries (read / peer events × followers)',
      'cut off',
      'cloudctl RSS (median), MiB',
      'cloudctl CPU, cores',
      'RSS per 100 followers, MiB',
      'CPU per 100 followers, cores',
    ],
    rows,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'orch-agent-bench-'));
const cluster = await startCluster({ nodes: 1, log });
const cloudctl = await startCloudctlProcess(dir);
try {
  const binary = await buildInformerPeer();
  await populate(
    { namespaces: NAMESPACES, configMaps: objects, pods: 0 },
    { client: cluster.client, nodes: [], log },
  );
  const targets = Array.from({ length: objects }, (_, i) => `${namespaceName(i % NAMESPACES)}/cm-${i}`);
  const agent = await startAgentProcess({
    dir,
    controlPlane: cloudctl,
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
      async () => {
        const held = await cloudctl.request('GET', '/cache/introspection', introspectionSchema);
        return (held.find((r) => r.account === ACCOUNT)?.totalObjects ?? 0) >= objects ? true : undefined;
      },
      5 * 60_000,
      500,
    );
    await within(peer.synced, 5 * 60_000, 'the client-go informer to sync');
    const load = {
      server: cluster.server,
      ca: cluster.ca,
      token: cluster.adminToken,
      targets,
      ratePerSecond: rate,
      seconds,
      recordVersions: true,
    };
    const rounds: Round[] = [];
    for (const followers of [0, clients]) rounds.push(await round(followers, { cloudctl, peer, load }));
    console.log(report(rounds));
  } finally {
    await peer.stop();
    await agent.stop();
  }
} finally {
  await cloudctl.stop();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
