// bench/status-page: the applications view on a large system. cloudctl's store is filled with A
// applications and P pods (each application a Deployment, two versions (ReplicaSets) and a Service
// selecting the newer; its pods split between the versions), written straight through the cache
// store's ingest path (`CacheStore.apply`, as an agent's batches arrive), so no cluster is needed and
// the read model indexes every row as it would. Then, with Debian's headless Chromium (playwright-
// core), each page is opened afresh R times: its first contentful paint, its load event, and when its
// live feed (GET /watch) is open; beside it the HTML alone as a plain client gets it, and its peers,
// the JSON API for the same user in the same run, each with the page's first paint over it: for the
// list, `GET /applications` (what Deck's list reads: names, no health) and the same facts as the
// page shows (that, then each application's `/serverGroups?expand=true`, six at a time as a browser
// sends them); for one application, its `/serverGroups?expand=true` (versions with their pods). Usage:
//   node bench/status-page.ts [--apps 100] [--pods 5000] [--reps 7] [--database pglite|postgres]
// --pods is the total, spread evenly over the applications (5 000 pods: 50 per application).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import type { CacheChange } from '../src/cloudctl/caching/index.ts';
import { hashToken } from '../src/cloudctl/index.ts';
import { signIn, startBrowser } from '../test/cloudctl/status-page/browser.ts';
import { type PostgresServer, startPostgres } from '../test/support/postgres-server.ts';
import { ACCOUNT, startBenchControlPlane } from './lib/bench-system.ts';
import { fixed, median, ratio, table } from './lib/summary.ts';

const { values } = parseArgs({
  options: {
    apps: { type: 'string', default: '100' },
    pods: { type: 'string', default: '5000' },
    reps: { type: 'string', default: '7' },
    database: { type: 'string', default: 'pglite' },
  },
});
if (values.database !== 'pglite' && values.database !== 'postgres')
  throw new Error(`--database: pglite or postgres, not ${values.database}`);
const APPS = Number(values.apps);
const PODS = Number(values.pods);
const REPS = Number(values.reps);
for (const [name, n] of [
  ['--apps', APPS],
  ['--pods', PODS],
  ['--reps', REPS],
] as const)
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}: a positive integer, not ${n}`);
const NAMESPACES = 10;
const NODES = 20;
const BATCH = 1000;
const log = (line: string) => console.error(`[status-page] ${line}`);

const appName = (i: number) => `app-${String(i).padStart(3, '0')}`;
const namespaceOf = (i: number) => `apps-${String(i % NAMESPACES).padStart(2, '0')}`;
const created = new Date(Date.UTC(2025, 0, 1)).toISOString();

function moniker(app: string, sequence?: number): Record<string, string> {
  return {
    'moniker.spinnaker.io/application': app,
    'moniker.spinnaker.io/cluster': `deployment ${app}`,
    ...(sequence === undefined ? {} : { 'moniker.spinnaker.io/sequence': String(sequence) }),
  };
}

let resourceVersion = 1;
function upsert(group: string, version: string, kind: string, namespace: string, body: object): CacheChange {
  const rv = String(resourceVersion++);
  const metadata = (body as { metadata: { name: string } }).metadata;
  return {
    type: 'upsert',
    account: ACCOUNT,
    group,
    kind,
    namespace,
    name: metadata.name,
    version,
    resourceVersion: rv,
    body: JSON.stringify({ ...body, metadata: { ...metadata, namespace, resourceVersion: rv } }),
    snapshotId: null,
  };
}

const uid = () => randomBytes(16).toString('hex');
const owner = (apiVersion: string, kind: string, name: string, id: string) => [
  { apiVersion, kind, name, uid: id, controller: true },
];

/** A version of the application: its ReplicaSet and its Running, ready pods. */
function version(app: string, ns: string, deploymentUid: string, sequence: number, pods: number) {
  const name = `${app}-v${String(sequence).padStart(3, '0')}`;
  const labels = { app, version: name };
  const rsUid = uid();
  const replicaSet = upsert('apps', 'v1', 'ReplicaSet', ns, {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      uid: rsUid,
      generation: 1,
      creationTimestamp: created,
      labels,
      annotations: moniker(app, sequence),
      ownerReferences: owner('apps/v1', 'Deployment', app, deploymentUid),
    },
    spec: {
      replicas: pods,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, annotations: moniker(app) },
        spec: { containers: [{ name: 'app', image: `registry.example/${app}:${sequence}` }] },
      },
    },
    status: {
      replicas: pods,
      fullyLabeledReplicas: pods,
      readyReplicas: pods,
      availableReplicas: pods,
      observedGeneration: 1,
    },
  });
  const podChanges = Array.from({ length: pods }, (_, p) =>
    upsert('', 'v1', 'Pod', ns, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${name}-${String(p).padStart(5, '0')}`,
        uid: uid(),
        creationTimestamp: created,
        labels,
        annotations: moniker(app),
        ownerReferences: owner('apps/v1', 'ReplicaSet', name, rsUid),
      },
      spec: {
        nodeName: `node-${p % NODES}`,
        containers: [{ name: 'app', image: `registry.example/${app}:${sequence}` }],
      },
      status: {
        phase: 'Running',
        podIP: `10.${sequence}.${Math.floor(p / 250)}.${p % 250}`,
        startTime: created,
        conditions: [
          { type: 'Initialized', status: 'True' },
          { type: 'Ready', status: 'True' },
          { type: 'ContainersReady', status: 'True' },
          { type: 'PodScheduled', status: 'True' },
        ],
        containerStatuses: [
          {
            name: 'app',
            ready: true,
            started: true,
            restartCount: p % 3,
            image: `registry.example/${app}:${sequence}`,
            state: { running: { startedAt: created } },
          },
        ],
      },
    }),
  );
  return [replicaSet, ...podChanges];
}

/** One application: a Deployment on its newer version, both versions, a Service to the newer. */
function application(i: number, pods: number): CacheChange[] {
  const app = appName(i);
  const ns = namespaceOf(i);
  const newer = Math.ceil(pods / 2);
  const deploymentUid = uid();
  const deployment = upsert('apps', 'v1', 'Deployment', ns, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: app,
      uid: deploymentUid,
      generation: 2,
      creationTimestamp: created,
      annotations: moniker(app),
    },
    spec: {
      replicas: newer,
      selector: { matchLabels: { app } },
      template: { metadata: { labels: { app } } },
    },
    status: {
      replicas: newer,
      updatedReplicas: newer,
      readyReplicas: newer,
      availableReplicas: newer,
      observedGeneration: 2,
      conditions: [{ type: 'Available', status: 'True' }],
    },
  });
  const service = upsert('', 'v1', 'Service', ns, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: app, uid: uid(), creationTimestamp: created, annotations: moniker(app) },
    spec: { selector: { app, version: `${app}-v001` }, ports: [{ port: 80, targetPort: 8080 }] },
  });
  return [
    deployment,
    service,
    ...version(app, ns, deploymentUid, 0, pods - newer),
    ...version(app, ns, deploymentUid, 1, newer),
  ];
}

/** `work` on each item, at most `width` at a time. */
async function pool<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: width }, lane));
}

async function timed(what: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await what();
  return performance.now() - started;
}

interface BrowserFigures {
  paint: number;
  load: number;
  live: number;
}

/** A fresh page opened at `path`: first contentful paint, load event, feed open (ms from navigation). */
async function openPage(page: Page, url: string): Promise<BrowserFigures> {
  await page.goto(url, { waitUntil: 'load', timeout: 300_000 });
  await page.locator('#live-state[data-feed="open"]').waitFor({ timeout: 120_000 });
  return page.evaluate(() => {
    // The browser's Performance Timeline (this file compiles without the DOM library).
    const timeline = (
      globalThis as unknown as {
        performance: {
          getEntriesByType(type: string): Array<{ loadEventEnd: number }>;
          getEntriesByName(name: string): Array<{ startTime: number }>;
          now(): number;
        };
      }
    ).performance;
    return {
      paint: timeline.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
      load: timeline.getEntriesByType('navigation')[0]?.loadEventEnd ?? Number.NaN,
      live: timeline.now(),
    };
  });
}

interface Row {
  what: string;
  samples: number[];
  /** A peer's row: the page's first contentful paint, to set beside it. */
  paint?: number[];
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-status-page-'));
  const token = randomBytes(24).toString('hex');
  const postgres: PostgresServer | undefined =
    values.database === 'postgres' ? await startPostgres() : undefined;
  const controlPlane = await startBenchControlPlane(dir, postgres?.url, { userTokenHash: hashToken(token) });
  const base = `http://127.0.0.1:${controlPlane.plane.httpPort}`;
  const browser = await startBrowser();
  try {
    const { store } = controlPlane.plane;
    // The account as an agent's hello registers it; open to every user (no permissions listed).
    await store.agents.register(
      {
        agentId: 'bench-agent',
        version: 'bench',
        zoneId: 'bench',
        replicaCount: 1,
        accounts: [
          {
            name: ACCOUNT,
            permissions: { read: [], write: [] },
            apiServerHost: 'https://127.0.0.1:6443',
            kubernetesVersion: 'v1.33.1',
          },
        ],
      },
      new Date(),
    );
    const changes = Array.from({ length: APPS }, (_, i) =>
      application(i, Math.floor(PODS / APPS) + (i < PODS % APPS ? 1 : 0)),
    ).flat();
    const ingestMs = await timed(async () => {
      for (let at = 0; at < changes.length; at += BATCH)
        await store.cache.apply(changes.slice(at, at + BATCH), new Date());
    });
    log(
      `stored ${changes.length} objects (${APPS} applications, ${PODS} pods) in ${(ingestMs / 1000).toFixed(1)} s (${values.database})`,
    );

    const api = (path: string) => async () => {
      const answer = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
      if (answer.status !== 200) throw new Error(`${path}: HTTP ${answer.status}`);
      await answer.arrayBuffer();
    };
    const page = await browser.context.newPage();
    // Signed in on a page that reads no application, so the sign-in is not part of what is timed.
    await signIn(page, base, token, '/status/agents');
    await page.close();
    const one = appName(0);
    // The list's peers: what Deck's list reads (names only), and the same facts as the page shows
    // through the API (each application's versions with their pods), six requests at a time as a
    // browser would send them.
    const names = Array.from({ length: APPS }, (_, i) => appName(i));
    const sameFacts = async () => {
      await api('/applications')();
      await pool(names, 6, (name) => api(`/applications/${name}/serverGroups?expand=true`)());
    };
    const pages = [
      {
        path: '/status/applications',
        peers: [
          { what: 'GET /applications', run: api('/applications') },
          { what: `GET /applications, then each one's /serverGroups?expand=true`, run: sameFacts },
        ],
      },
      {
        path: `/status/applications/${one}`,
        peers: [
          {
            what: `GET /applications/${one}/serverGroups?expand=true`,
            run: api(`/applications/${one}/serverGroups?expand=true`),
          },
        ],
      },
    ];
    const rows: Row[] = [];
    for (const { path, peers } of pages) {
      const html = api(path);
      // One of each first, untimed: the first request of a kind warms what every later one shares.
      await html();
      for (const peer of peers) await peer.run();
      const peerMs = peers.map(() => [] as number[]);
      const htmlMs: number[] = [];
      const figures: BrowserFigures[] = [];
      for (let rep = 0; rep < REPS; rep++) {
        for (const [i, peer] of peers.entries()) peerMs[i]?.push(await timed(peer.run));
        htmlMs.push(await timed(html));
        const tab = await browser.context.newPage();
        figures.push(await openPage(tab, `${base}${path}`));
        await tab.close();
      }
      log(`${path}: ${REPS} reps done`);
      const paint = figures.map((f) => f.paint);
      rows.push(
        { what: `${path}: the HTML (plain client)`, samples: htmlMs },
        { what: `${path}: first contentful paint`, samples: paint },
        { what: `${path}: load event`, samples: figures.map((f) => f.load) },
        { what: `${path}: feed open (live)`, samples: figures.map((f) => f.live) },
        ...peers.map((peer, i) => ({ what: `peer: ${peer.what}`, samples: peerMs[i] ?? [], paint })),
      );
    }
    console.log(
      `\nStatus page at ${APPS} applications × ${PODS} pods (${changes.length} objects, ${values.database}), ${REPS} fresh page loads each, Chromium headless:\n`,
    );
    console.log(
      table(
        ['what', 'median ms', 'max ms', 'first paint / peer (medians)'],
        rows.map((r) => [
          r.what,
          fixed(median(r.samples)),
          fixed(Math.max(...r.samples)),
          r.paint === undefined ? '' : ratio(median(r.paint), median(r.samples)),
        ]),
      ),
    );
  } finally {
    await browser.close();
    await controlPlane.close();
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
