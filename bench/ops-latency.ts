// bench/ops-latency: a 10-object deploy timed as a user pays for it, beside what a user would run
// instead, alternating who goes first run by run:
// - ours: deployManifest through cloudctl's HTTP API, as a Spinnaker client sends it (POST
//   /orchestrator/ops with a user's bearer token, from a client in its own process on a kept-alive
//   connection), then GET /task/{id} until the task is complete, each GET waiting for the task's
//   next change (`--follow wait`, the default) or at once and every --poll-ms (`--follow poll`, as
//   Orca polls): HTTP, authentication, the plan (the account's description, kept from the agent's
//   last answer), the task stored, the agent's server-side applies, the result stored, and the
//   client's read of the completion;
// - kubectl apply --server-side of the same objects, a process per run (discovery cached on disk);
// - a warm Go client: client-go's dynamic client server-side applying the same objects one after
//   another from a running process (bench/peers/informer, its `apply` command), timed by that process;
// - the limit: the ten bare server-side-apply requests, one after another on a warm connection.
// Each run changes a label on every object, so each apply really writes. Usage:
//   node bench/ops-latency.ts [--runs 50] [--warmup 3] [--follow wait|poll] [--poll-ms 10]
//     [--database pglite|postgres]
// Beside the table it prints where our time goes, hop by hop, from the times cloudctl stores and the
// client's clock (the same wall clock): POST sent, task stored, operation sent to the agent, the
// agent's deploy, result stored, task completed, completion read by the client.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { dump } from 'js-yaml';
import { hashToken } from '../src/cloudctl/index.ts';
import { type Cluster, startCluster } from '../test/cluster/cluster.ts';
import { startPostgres } from '../test/support/postgres-server.ts';
import {
  ACCOUNT,
  type BenchControlPlane,
  startAgentProcess,
  startBenchControlPlane,
  waitFor,
  within,
} from './lib/bench-system.ts';
import { fixed, median, percentile, ratio, table } from './lib/summary.ts';
import { startTaskClient, type TaskTiming } from './lib/task-client.ts';
import { buildInformerPeer, startInformerPeer } from './peers/informer-peer.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '3' },
    follow: { type: 'string', default: 'wait' },
    'poll-ms': { type: 'string', default: '10' },
    database: { type: 'string', default: 'pglite' },
  },
});
if (values.database !== 'pglite' && values.database !== 'postgres')
  throw new Error(`--database: pglite or postgres, not ${values.database}`);
if (values.follow !== 'wait' && values.follow !== 'poll')
  throw new Error(`--follow: wait or poll, not ${values.follow}`);
const follow = values.follow;
const runs = Number(values.runs);
const warmup = Number(values.warmup);
const pollMs = Number(values['poll-ms']);
const log = (line: string) => console.error(`[ops-latency] ${line}`);
/** The targets: ours within these factors of the warm Go client, at p50 and p99. */
const TARGET_VS_GO = 1.3;
const TARGET_VS_GO_P99 = 1.5;
/** A run not done by then is a failure, not a sample. */
const RUN_LIMIT_MS = 60_000;
// Each side applies into its own namespace: two field managers on one object would conflict.
const NAMESPACES = {
  ours: 'bench-ops-agent',
  kubectl: 'bench-ops-kubectl',
  go: 'bench-ops-go',
  limit: 'bench-ops-raw',
} as const;

// Where each kind of the manifest lives in the API, for the raw requests of the limit.
const COLLECTIONS: Record<string, string> = {
  ServiceAccount: '/api/v1/namespaces/NS/serviceaccounts',
  ConfigMap: '/api/v1/namespaces/NS/configmaps',
  Secret: '/api/v1/namespaces/NS/secrets',
  Role: '/apis/rbac.authorization.k8s.io/v1/namespaces/NS/roles',
  RoleBinding: '/apis/rbac.authorization.k8s.io/v1/namespaces/NS/rolebindings',
  Deployment: '/apis/apps/v1/namespaces/NS/deployments',
  Service: '/api/v1/namespaces/NS/services',
};
const run = promisify(execFile);

interface Manifest {
  kind: string;
  metadata: { name: string };
}

/**
 * Ten everyday objects of an application, labelled with the run number, in the order our deploy
 * applies them (ConfigMaps and Secrets before what mounts them), which every side follows. The
 * ConfigMaps and the Secret say `versioned: "false"`: Spinnaker would otherwise deploy each run as a
 * new `-vNNN` object, and every side is to update the same ten objects.
 */
function manifests(namespace: string, runId: string): object[] {
  const meta = (name: string) => ({ name, namespace, labels: { app: 'shop', 'bench-run': runId } });
  const unversioned = (name: string) => ({
    ...meta(name),
    annotations: { 'strategy.spinnaker.io/versioned': 'false' },
  });
  const deployment = (name: string) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta(name),
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{ name, image: `registry.example/${name}:1.0`, ports: [{ containerPort: 8080 }] }],
        },
      },
    },
  });
  const service = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(name),
    spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }] },
  });
  return [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: unversioned('web-settings'),
      data: { greeting: 'hello' },
    },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: unversioned('api-settings'), data: { pool: '16' } },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: unversioned('api-credentials'),
      stringData: { password: 'bench' },
    },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('shop') },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: meta('shop-reader'),
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: meta('shop-reader'),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'shop-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'shop', namespace }],
    },
    deployment('web'),
    deployment('api'),
    service('web'),
    service('api'),
  ];
}

type Contender = (runId: string) => Promise<number>;

/** A process per run, as a pipeline step or a person runs it. */
function kubectlApply(cluster: Cluster, dir: string): Contender {
  const kubectl = cluster.binaries.path('kubectl');
  const cacheDir = join(dir, 'kubectl-cache');
  return async (runId) => {
    const file = join(dir, `kubectl-${runId}.yaml`);
    writeFileSync(
      file,
      manifests(NAMESPACES.kubectl, runId)
        .map((m) => dump(m))
        .join('---\n'),
    );
    const started = performance.now();
    await run(kubectl, [
      'apply',
      '--server-side',
      '--kubeconfig',
      cluster.kubeconfigPath,
      '--cache-dir',
      cacheDir,
      '-f',
      file,
    ]);
    return performance.now() - started;
  };
}

/** The physical limit: the same ten server-side applies as bare sequential requests, nothing around them. */
function bareRequests(cluster: Cluster): Contender {
  return async (runId) => {
    const started = performance.now();
    for (const manifest of manifests(NAMESPACES.limit, runId) as Manifest[]) {
      const path = `${COLLECTIONS[manifest.kind]?.replace('NS', NAMESPACES.limit)}/${manifest.metadata.name}`;
      const response = await cluster.client.request('PATCH', `${path}?fieldManager=bench&force=true`, {
        body: JSON.stringify(manifest),
        contentType: 'application/apply-patch+yaml',
      });
      if (response.status >= 300) throw new Error(`apply ${path}: HTTP ${response.status}: ${response.text}`);
    }
    return performance.now() - started;
  };
}

/** Warm-ups for every contender, then `runs` rounds, rotating who goes first each round. */
async function measure(contenders: readonly Contender[], warmed: () => Promise<void>): Promise<number[][]> {
  for (let i = 0; i < warmup; i++) for (const contender of contenders) await contender(`warm-${i}`);
  await warmed();
  const samples: number[][] = contenders.map(() => []);
  for (let i = 0; i < runs; i++) {
    // So none always meets the cluster just after another's writes.
    for (let k = 0; k < contenders.length; k++) {
      const which = (i + k) % contenders.length;
      const contender = contenders[which] as Contender;
      samples[which]?.push(await within(contender(`run-${i}`), RUN_LIMIT_MS, `run ${i}, contender ${which}`));
    }
  }
  return samples;
}

function report(samples: number[][], timings: readonly TaskTiming[]): void {
  const [ours = [], go = [], kubectl = [], limit = []] = samples;
  const row = (q: number) => {
    const [o, g, k, l] = [
      percentile(ours, q),
      percentile(go, q),
      percentile(kubectl, q),
      percentile(limit, q),
    ];
    return [`p${q}`, fixed(o), fixed(g), ratio(o, g), fixed(k), ratio(o, k), fixed(l), ratio(o, l)];
  };
  console.log(
    table(
      [
        '10-object deploy, ms',
        'ours: HTTP API + task',
        'warm Go client SSA',
        'ours/Go',
        'kubectl apply --server-side',
        'ours/kubectl',
        'limit: 10 bare SSA requests',
        'ours/limit',
      ],
      [row(50), row(99)],
    ),
  );
  const p50 = percentile(ours, 50) / percentile(go, 50);
  const p99 = percentile(ours, 99) / percentile(go, 99);
  const followed = follow === 'wait' ? 'each GET waiting for its next change' : `polled every ${pollMs} ms`;
  log(`${runs} runs each, after ${warmup} warm-up runs each; task ${followed}`);
  const polls = timings.map((t) => t.polls);
  log(`cloudctl's database: ${values.database === 'postgres' ? 'PostgreSQL' : 'PGlite (embedded)'}`);
  log(`GET /task/{id} per deploy: median ${median(polls)}, max ${Math.max(...polls)}`);
  const accepted = fixed(
    percentile(
      timings.map((t) => t.acceptedMs),
      50,
    ),
  );
  log(`ours, POST answered (request checked, deploy planned, task stored): p50 ${accepted} ms`);
  log(`target (ours ≤ ${TARGET_VS_GO}× the warm Go client, p50): ${p50 <= TARGET_VS_GO ? 'met' : 'not met'}`);
  log(
    `target (ours ≤ ${TARGET_VS_GO_P99}× the warm Go client, p99): ${p99 <= TARGET_VS_GO_P99 ? 'met' : 'not met'}`,
  );
}

/** The agent's histogram of `deploy` operations, receipt to result: seconds in all, and how many. */
async function agentDeploys(metricsUrl: string): Promise<{ seconds: number; count: number }> {
  const text = await (await fetch(metricsUrl)).text();
  const read = (series: string) => {
    const match = new RegExp(
      `^orch_agent_operation_duration_seconds_${series}\\{[^}]*type="deploy"[^}]*\\} (\\S+)$`,
      'm',
    ).exec(text);
    return match?.[1] === undefined ? 0 : Number(match[1]);
  };
  return { seconds: read('sum'), count: read('count') };
}

/**
 * Where our time goes, hop by hop, for the measured runs: the client's wall-clock times beside the
 * times cloudctl stored for each run's task and deploy operation (milliseconds, one clock), and the
 * agent's histogram for its own part (the runs' mean). Printed beside the table, to say what bounds
 * our figure.
 */
async function breakdown(
  controlPlane: BenchControlPlane,
  timings: readonly TaskTiming[],
  agentMetricsUrl: string,
  warm: { seconds: number; count: number },
): Promise<void> {
  const { tasks, operations } = controlPlane.plane.store;
  // The result reaches the waiting task before it is recorded (docs/decisions.md, "An operation's
  // result reaches its task before it is recorded"): its record comes after the completion, off the
  // client's path.
  const hops: Record<string, number[]> = {
    'POST sent → task stored': [],
    'task stored → deploy sent to the agent': [],
    'deploy sent → task completed (the agent, gRPC, the result handed to the task)': [],
    'task completed → completion read by the client': [],
    "task completed → the deploy's result recorded (after, off the client's path)": [],
  };
  const add = (hop: string, ms: number) => hops[hop]?.push(ms);
  for (const timing of timings) {
    const task = await tasks.get(timing.taskId);
    const operationId = task?.steps[0]?.operationId;
    const operation = operationId == null ? undefined : await operations.get(operationId);
    if (task === undefined || operation?.reportedAt == null) continue;
    const [created, sent, reported, completed] = [
      task.createdAt.getTime(),
      operation.createdAt.getTime(),
      operation.reportedAt.getTime(),
      task.updatedAt.getTime(),
    ];
    add('POST sent → task stored', created - timing.sentAt);
    add('task stored → deploy sent to the agent', sent - created);
    add('deploy sent → task completed (the agent, gRPC, the result handed to the task)', completed - sent);
    add('task completed → completion read by the client', timing.seenAt - completed);
    add("task completed → the deploy's result recorded (after, off the client's path)", reported - completed);
  }
  for (const [hop, ms] of Object.entries(hops)) log(`ours, ${hop}: p50 ${fixed(percentile(ms, 50))} ms`);
  const done = await agentDeploys(agentMetricsUrl);
  const mean = ((done.seconds - warm.seconds) / (done.count - warm.count)) * 1000;
  log(`ours, the agent's deploy (receipt to result, mean of the runs): ${fixed(mean)} ms`);
  const asked = (await operations.recent(10_000)).filter((o) => o.type === 'describeAccount').length;
  log(`ours, describeAccount operations sent in all (warm-ups included): ${asked}`);
}

// Built (or found in the cache) before anything starts, so a failed build leaves nothing running.
const peerBinary = await buildInformerPeer();
const dir = mkdtempSync(join(tmpdir(), 'orch-agent-bench-'));
const userToken = randomBytes(24).toString('hex');
const cluster = await startCluster({ nodes: 2, log });
// cloudctl stores tasks and operations in its embedded database (PGlite, in the benchmark's process)
// or, as a deployment with replicas does, in PostgreSQL.
const postgres = values.database === 'postgres' ? await startPostgres() : undefined;
const controlPlane = await startBenchControlPlane(dir, postgres?.url, {
  userTokenHash: hashToken(userToken),
});
const client = startTaskClient();
// No informers: the peer only applies.
const peer = startInformerPeer({ binary: peerBinary, kubeconfig: cluster.kubeconfigPath, kinds: [] });
try {
  for (const name of Object.values(NAMESPACES)) {
    await cluster.client.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    });
  }
  // The agent watches one small kind: this measures operations, not the cache stream.
  const agent = await startAgentProcess({
    dir,
    controlPlane,
    kubeconfigPath: cluster.kubeconfigPath,
    kinds: ['namespace'],
    orchestratorExtra: ['serverSideApply:', '  enabled: always'],
  });
  try {
    await waitFor(
      'the agent to be ready',
      async () => ((await fetch(`${agent.healthUrl}/ready`).catch(() => undefined))?.ok ? true : undefined),
      60_000,
      100,
    );
    await within(peer.synced, 60_000, 'the Go client to start');
    const base = `http://127.0.0.1:${controlPlane.plane.httpPort}`;
    const timings: TaskTiming[] = [];
    const ours: Contender = async (runId) => {
      const operations = [
        {
          deployManifest: {
            account: ACCOUNT,
            cloudProvider: 'orchestrator',
            source: 'text',
            moniker: { app: 'shop' },
            manifests: manifests(NAMESPACES.ours, runId),
          },
        },
      ];
      const timing = await client.run({
        base,
        token: userToken,
        follow,
        pollMs,
        operations,
        limitMs: RUN_LIMIT_MS,
      });
      if (runId.startsWith('run-')) timings.push(timing);
      return timing.ms;
    };
    const go: Contender = (runId) => peer.apply(manifests(NAMESPACES.go, runId));
    let warm = { seconds: 0, count: 0 };
    const contenders = [ours, go, kubectlApply(cluster, dir), bareRequests(cluster)];
    report(
      await measure(contenders, async () => {
        warm = await agentDeploys(agent.metricsUrl);
      }),
      timings,
    );
    await breakdown(controlPlane, timings, agent.metricsUrl, warm);
  } finally {
    await agent.stop();
  }
} finally {
  await peer.stop();
  await client.close();
  await controlPlane.close();
  await postgres?.stop();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
