// bench/ops-latency: a 10-object deploy through an agent operation, timed end to end from cloudctl's
// internal API (dispatch, agent, server-side apply, result stored), beside `kubectl apply
// --server-side` of the same objects, alternating run by run. Each run changes a label on every
// object, so each apply really writes. Usage:
//   node bench/ops-latency.ts [--runs 50] [--warmup 3]
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { dump } from 'js-yaml';
import { startCluster } from '../test/cluster/cluster.ts';
import { ACCOUNT, startAgentProcess, startBenchControlPlane, waitFor } from './lib/bench-system.ts';
import { fixed, percentile, ratio, table } from './lib/summary.ts';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '50' }, warmup: { type: 'string', default: '3' } },
});
const runs = Number(values.runs);
const warmup = Number(values.warmup);
const log = (line: string) => console.error(`[ops-latency] ${line}`);
// Each side applies into its own namespace: two field managers on one object would conflict.
const NAMESPACES = { ours: 'bench-ops-agent', theirs: 'bench-ops-kubectl', limit: 'bench-ops-raw' } as const;

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

/** Ten everyday objects of an application, labelled with the run number. */
function manifests(namespace: string, runId: string): object[] {
  const meta = (name: string) => ({
    name,
    namespace,
    labels: { app: 'shop', 'bench-run': runId },
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
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('shop') },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('web-settings'), data: { greeting: 'hello' } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('api-settings'), data: { pool: '16' } },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: meta('api-credentials'),
      stringData: { password: 'bench' },
    },
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

const dir = mkdtempSync(join(tmpdir(), 'orch-agent-bench-'));
const cluster = await startCluster({ nodes: 2, log });
const controlPlane = await startBenchControlPlane(dir);
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
    const kubectl = cluster.binaries.path('kubectl');
    const cacheDir = join(dir, 'kubectl-cache');
    const ours = async (runId: string) => {
      const started = performance.now();
      const outcome = await controlPlane.plane.operations.execute({
        account: ACCOUNT,
        type: 'deploy',
        payload: { manifests: manifests(NAMESPACES.ours, runId) },
      });
      if (outcome.outcome !== 'succeeded') throw new Error(`deploy ${runId}: ${outcome.error}`);
      return performance.now() - started;
    };
    const theirs = async (runId: string) => {
      const file = join(dir, `kubectl-${runId}.yaml`);
      writeFileSync(
        file,
        manifests(NAMESPACES.theirs, runId)
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
    // The physical limit: the same ten server-side applies as bare sequential requests on a warm
    // connection, with nothing around them.
    const limit = async (runId: string) => {
      const started = performance.now();
      for (const manifest of manifests(NAMESPACES.limit, runId) as Manifest[]) {
        const path = `${COLLECTIONS[manifest.kind]?.replace('NS', NAMESPACES.limit)}/${manifest.metadata.name}`;
        const response = await cluster.client.request('PATCH', `${path}?fieldManager=bench&force=true`, {
          body: JSON.stringify(manifest),
          contentType: 'application/apply-patch+yaml',
        });
        if (response.status >= 300)
          throw new Error(`apply ${path}: HTTP ${response.status}: ${response.text}`);
      }
      return performance.now() - started;
    };
    const contenders = [ours, theirs, limit];
    for (let i = 0; i < warmup; i++) for (const contender of contenders) await contender(`warm-${i}`);
    const samples: number[][] = contenders.map(() => []);
    for (let i = 0; i < runs; i++) {
      // Rotate who goes first, so none always meets the cluster just after another's writes.
      for (let k = 0; k < contenders.length; k++) {
        const which = (i + k) % contenders.length;
        samples[which]?.push(await (contenders[which] as (id: string) => Promise<number>)(`run-${i}`));
      }
    }
    const [ourMs = [], theirMs = [], limitMs = []] = samples;
    const row = (q: number) => {
      const [o, t, l] = [percentile(ourMs, q), percentile(theirMs, q), percentile(limitMs, q)];
      return [`p${q}`, fixed(o), fixed(t), ratio(o, t), fixed(l), ratio(o, l)];
    };
    console.log(
      table(
        [
          '10-object deploy, ms',
          'orch-agent operation',
          'kubectl apply --server-side',
          'ours/kubectl',
          'limit: 10 bare SSA requests',
          'ours/limit',
        ],
        [row(50), row(99)],
      ),
    );
    log(`${runs} runs each, after ${warmup} warm-up runs each`);
  } finally {
    await agent.stop();
  }
} finally {
  await controlPlane.close();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
