// `npm run demo`: a local, working system in one command. It builds the real Kubernetes binaries
// once (with progress), starts a cluster (etcd, kube-apiserver, controllers, kwok nodes), runs
// `cloudctl serve` on its embedded database and the agent binary against the cluster, deploys a
// sample application through cloudctl's HTTP API as a user would, and prints curl lines to look
// further. Ctrl-C stops everything.
// `--headless` stops by itself once the sample application has reached the control plane (the test
// of this script uses it); it exits 1 with the reason if it does not. A process that exits on its own
// has the end of its log printed; a failed run keeps its work directory (logs, configs, database).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { hashToken } from '../src/cloudctl/index.ts';
import { locateBinaryCache } from '../test/cluster/binary-cache.ts';
import { buildBinaries } from '../test/cluster/build-binaries.ts';
import { startCluster } from '../test/cluster/cluster.ts';
import { freePort } from '../test/cluster/free-port.ts';
import { programCommand } from '../test/support/program-command.ts';
import { startDemoProcess } from './demo-process.ts';
import { startDemoWebhookJob } from './demo-webhook-job.ts';

const headless = process.argv.includes('--headless');
const say = (line: string) => console.log(`[demo] ${line}`);
const ROOT = new URL('..', import.meta.url).pathname;
const NAMESPACE = 'demo-shop';

const SAMPLE_APP = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } },
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'web-settings', namespace: NAMESPACE },
    data: { greeting: 'hello from orch-agent' },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: NAMESPACE, labels: { app: 'web' } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [{ name: 'web', image: 'registry.example/web:1.0', ports: [{ containerPort: 8080 }] }],
        },
      },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: NAMESPACE },
    spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
  },
];

const planSchema = z.looseObject({
  id: z.string(),
  applyUri: z.string(),
  operations: z.array(
    z.looseObject({
      objects: z.array(
        z.looseObject({
          kind: z.string(),
          name: z.string(),
          resourceVersion: z.string().nullable(),
          diff: z.array(z.looseObject({ path: z.string(), before: z.unknown(), after: z.unknown() })),
        }),
      ),
    }),
  ),
});
const startedSchema = z.object({ id: z.string() });
const taskSchema = z.looseObject({ status: z.looseObject({ completed: z.boolean(), failed: z.boolean() }) });
const objectSchema = z.looseObject({ metadata: z.looseObject({ resourceVersion: z.string() }) });

/**
 * Step 7: POST /plans with the sample app's web at a new image shows the image path's change while the
 * Deployment stays as it was; applying the plan deploys it, and a second apply is refused.
 */
async function showPlanAndApply(
  call: (method: string, path: string, body?: unknown) => Promise<unknown>,
  attempt: (method: string, path: string) => Promise<{ status: number; body: unknown }>,
  cluster: { request(method: string, path: string): Promise<{ json: unknown }> },
) {
  const webPath = `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/web`;
  const versionOfWeb = async () =>
    objectSchema.parse((await cluster.request('GET', webPath)).json).metadata.resourceVersion;
  const newImage = 'registry.example/web:1.1';
  const manifests = SAMPLE_APP.map((m) =>
    m.kind === 'Deployment' ? JSON.parse(JSON.stringify(m).replace('registry.example/web:1.0', newImage)) : m,
  );
  const before = await versionOfWeb();
  const plan = planSchema.parse(
    await call('POST', '/plans', [
      { deployManifest: { account: 'demo', moniker: { app: 'demo-shop' }, manifests } },
    ]),
  );
  const web = plan.operations
    .flatMap((o) => o.objects)
    .find((o) => o.kind === 'Deployment' && o.name === 'web');
  for (const change of web?.diff ?? [])
    say(
      `    plan ${plan.id}: Deployment ${NAMESPACE}/web ${change.path}: ${String(change.before)} -> ${String(change.after)}`,
    );
  const after = await versionOfWeb();
  say(
    `    nothing changed while planning: web's resourceVersion ${before === after ? `is still ${after}` : `moved from ${before} to ${after}`}`,
  );
  const applied = startedSchema.parse(await call('POST', plan.applyUri));
  const task = await until("the plan's task to complete", async () => {
    const current = taskSchema.parse(await call('GET', `/task/${applied.id}`));
    return current.status.completed ? current : undefined;
  });
  if (task.status.failed) throw new Error(`applying plan ${plan.id} failed: ${JSON.stringify(task.status)}`);
  say(`    applied: task ${applied.id} deployed exactly the plan`);
  const again = await attempt('POST', plan.applyUri);
  const refusal = z.looseObject({ message: z.string() }).safeParse(again.body);
  say(
    `    a second apply: ${again.status} ${refusal.success ? refusal.data.message : JSON.stringify(again.body)}`,
  );
  return plan.id;
}

const cleanups: Array<() => Promise<void>> = [];
const stop = new AbortController();
let stopping = false;
let exitCode = 0;
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  exitCode = code;
  stop.abort();
  say('stopping: agent, control plane, cluster');
  for (const cleanup of cleanups.reverse())
    await cleanup().catch((error: unknown) => say(`cleanup: ${String(error)}`));
  process.exit(code);
}
process.once('SIGINT', () => void shutdown(0));
process.once('SIGTERM', () => void shutdown(0));

/**
 * Starts one of our binaries with its output in `log`, with the Node flags and environment it ships
 * with (its shebang's, the image's). If it exits on its own, the demo prints the end of that log and
 * ends; the work directory holding the log is then kept (see `shutdown`).
 */
function startLogged(
  bin: 'cloudctl' | 'orch-agent',
  args: string[],
  env: Record<string, string>,
  log: string,
) {
  const started = startDemoProcess({
    ...programCommand(bin, args, env),
    log,
    onEnded: ({ how, tail }) => {
      say(`${bin} exited (${how}); the last ${tail.length} lines of its log (${log}):`);
      for (const line of tail) say(`    | ${line}`);
      void shutdown(1);
    },
  });
  cleanups.push(() => started.stop());
}

/** One readiness request; a connection that never answers counts as not ready, not as a hang. */
const askReady = (url: string) => fetch(url, { signal: AbortSignal.timeout(5_000) });

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(250);
  }
}

/** The sample application's deployment file: a canary whose 50% step waits for a webhook job. */
function deploymentFile(jobUrl: string): string {
  return `# written by npm run demo: cloudctl deploy -f this file
application: potato-facts
targets:
  demo:
    account: demo
    namespace: ${NAMESPACE}
    strategy: gated-canary
strategies:
  gated-canary:
    canary:
      steps:
        - setWeight: {weight: 50}
        - runWebhook:
            name: smoke-tests
            context: {suite: smoke}
webhooks:
  - name: smoke-tests
    method: POST
    uriTemplate: ${jobUrl}/run/{{context.suite}}
    networkMode: direct
    retryCount: 2
    headers:
      - {key: Content-Type, value: application/json}
    bodyTemplate:
      inline: '{"callbackUri": "{{vendor.callbackUri}}", "replicaSet": "{{vendor.replicaSetName}}"}'
manifests:
  - path: manifests
`;
}

function potatoFacts(version: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: potato-facts
spec:
  replicas: 2
  selector:
    matchLabels: {app: potato-facts}
  template:
    metadata:
      labels: {app: potato-facts}
    spec:
      containers:
        - name: web
          image: registry.example/potato-facts:${version}
---
apiVersion: v1
kind: Service
metadata:
  name: potato-facts
spec:
  selector: {app: potato-facts}
  ports:
    - port: 80
`;
}

/** Runs `cloudctl deploy -f` as a user would, its output shown; resolves with its exit status. */
async function cloudctlDeploy(file: string, env: Record<string, string>): Promise<number | null> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'cloudctl.js'), 'deploy', '-f', file], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const show = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line !== '') say(`    | ${line}`);
  };
  child.stdout.on('data', show);
  child.stderr.on('data', show);
  const [code] = await once(child, 'exit');
  return code;
}

const createdClientSchema = z.object({ clientId: z.string(), clientSecret: z.string() });

try {
  say('1/7 Kubernetes binaries (built from upstream Go modules once, then cached)');
  const cache = await locateBinaryCache();
  await buildBinaries({ cache, log: (line) => say(`    ${line}`) });

  say('2/7 starting a local cluster (etcd, kube-apiserver, controllers, scheduler, kwok nodes)');
  const cluster = await startCluster({ nodes: 3, log: (line) => say(`    ${line}`) });
  cleanups.push(() => cluster.stop());

  const dir = mkdtempSync(join(tmpdir(), 'orch-agent-demo-'));
  // A failed run keeps its logs, configs and database: the reason is in them.
  cleanups.push(async () => {
    if (exitCode === 0) rmSync(dir, { recursive: true, force: true });
    else say(`kept this run's work directory (logs, configs, cloudctl's database): ${dir}`);
  });
  say(`3/7 starting cloudctl serve on its embedded database (${join(dir, 'cloudctl-data')})`);
  const token = randomBytes(24).toString('hex');
  const userToken = randomBytes(24).toString('hex');
  // freePort's ports come from below the kernel's ephemeral range: the program binds its port only
  // seconds later (cloudctl after its database, the agent after loading its modules), and a port the
  // kernel could hand to any process that connects meanwhile would make it exit at start.
  const [grpcPort, httpPort] = [await freePort(), await freePort()];
  const cloudctlConfig = join(dir, 'cloudctl.yaml');
  writeFileSync(
    cloudctlConfig,
    [
      '# written by npm run demo',
      `grpc:\n  host: 127.0.0.1\n  port: ${grpcPort}`,
      `http:\n  host: 127.0.0.1\n  port: ${httpPort}`,
      `database:\n  dataDir: ${join(dir, 'cloudctl-data')}`,
      `agents:\n  - id: demo-agent\n    tokenHash: ${hashToken(token)}`,
      `users:\n  - name: demo\n    tokenHash: ${hashToken(userToken)}\n    roles: [admins]`,
      'auth:\n  adminRoles: [admins]',
      '',
    ].join('\n'),
  );
  const cloudctlLog = join(dir, 'cloudctl.log');
  startLogged('cloudctl', ['serve', '--config', cloudctlConfig], {}, cloudctlLog);
  const api = `http://127.0.0.1:${httpPort}`;
  await until('cloudctl to be ready', async () => ((await askReady(`${api}/ready`)).ok ? true : undefined));
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${userToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer: unknown = await response.json();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  /** A request whose refusal is part of what is shown: its status and body, never thrown. */
  const attempt = async (method: string, path: string) => {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: { authorization: `Bearer ${userToken}` },
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };

  say('4/7 starting the agent (bin/orch-agent.js run)');
  // The metrics listener binds every interface (the agent has no setting for its host): checked there.
  const [healthPort, metricsPort, pprofPort] = [
    await freePort(),
    await freePort('0.0.0.0'),
    await freePort(),
  ];
  const agentConfig = join(dir, 'agent.yaml');
  writeFileSync(
    agentConfig,
    [
      '# written by npm run demo',
      'variant: B',
      `cloudctl:\n  grpc: 127.0.0.1:${grpcPort}\n  insecure: true\n  auth:\n    token: encrypted:env!n:ORCH_AGENT_TOKEN`,
      `orchestrator:\n  accounts:\n    - name: demo\n      orchConfigFile: ${cluster.kubeconfigPath}\n      kinds: [namespace, deployment, replicaSet, pod, service, configMap]`,
      `server:\n  host: 127.0.0.1\n  port: ${healthPort}`,
      `telemetry:\n  enabled: true\n  port: ${metricsPort}`,
      `pprof:\n  enabled: true\n  port: ${pprofPort}`,
      'logging:\n  format: text',
      '',
    ].join('\n'),
  );
  const agentLog = join(dir, 'agent.log');
  startLogged(
    'orch-agent',
    ['run', '--config', agentConfig],
    { ORCH_AGENT_TOKEN: token, ORCH_AGENT_ID: 'demo-agent' },
    agentLog,
  );
  const health = `http://127.0.0.1:${healthPort}`;
  await until('the agent to be ready (connected and synced)', async () =>
    (await askReady(`${health}/ready`)).ok ? true : undefined,
  );

  say('5/7 deploying the sample application through the HTTP API (POST /ops, then GET /task/{id})');
  const started = (await call('POST', '/ops', [
    { deployManifest: { account: 'demo', moniker: { app: 'demo-shop' }, manifests: SAMPLE_APP } },
  ])) as { id: string };
  const task = await until('the deploy task to complete', async () => {
    const current = (await call('GET', `/task/${started.id}`)) as {
      status: { completed: boolean; failed: boolean; status: string };
    };
    return current.status.completed ? current : undefined;
  });
  if (task.status.failed) throw new Error(`deploy failed: ${task.status.status}`);
  say(`    deploy succeeded (task ${started.id})`);
  const kindCounts = async () => {
    const introspection = (await call('GET', '/cache/introspection')) as Array<{
      account: string;
      kinds: Array<{ kind: string; count: number }>;
    }>;
    const kinds = introspection.find((entry) => entry.account === 'demo')?.kinds ?? [];
    return new Map(kinds.map((k) => [k.kind, k.count]));
  };
  const counts = await until('3 pods of the sample application in the control plane cache', async () => {
    const current = await kindCounts();
    return (current.get('pod') ?? 0) >= 3 ? current : undefined;
  });
  say(
    `    the control plane holds, for account demo: ${[...counts].map(([kind, n]) => `${n} ${kind}`).join(', ')}`,
  );

  say('6/7 a deployment file through `cloudctl deploy -f`: a canary gated by a webhook job');
  // The job authenticates its callback with a Deployments Full Access client credential, as the spec's jobs do.
  const client = createdClientSchema.parse(
    await call('POST', '/clients', { name: 'demo-webhook-job', type: 'deployments', roles: ['deployers'] }),
  );
  const job = await startDemoWebhookJob({ api, ...client, say });
  cleanups.push(async () => job.close());
  const project = join(dir, 'potato-facts');
  mkdirSync(join(project, 'manifests'), { recursive: true });
  const deployFile = join(project, 'deploy.yaml');
  writeFileSync(deployFile, deploymentFile(job.url));
  const deployEnv = { CLOUDCTL_URL: api, CLOUDCTL_TOKEN: userToken };
  for (const version of ['1.0', '1.1']) {
    writeFileSync(join(project, 'manifests', 'potato-facts.yaml'), potatoFacts(version));
    say(
      `    potato-facts ${version}${version === '1.0' ? ' (a first version rolls out in full)' : ': 50%, the job, then 100%'}`,
    );
    const code = await cloudctlDeploy(deployFile, deployEnv);
    if (code !== 0) throw new Error(`cloudctl deploy -f ${deployFile} exited ${code}`);
  }
  say('    deploy -f succeeded twice: potato-facts 1.1 passed its canary gate');

  say('7/7 a plan first: what a new image of web would change, then exactly that applied (POST /plans)');
  const planId = await showPlanAndApply(call, attempt, cluster.client);

  if (headless) {
    say('headless run: the sample application reached the control plane');
    await shutdown(0);
  }
  const auth = `-H "Authorization: Bearer $CLOUDCTL_TOKEN"`;
  console.log(`
The system is up. See what runs:
  export CLOUDCTL=${api} CLOUDCTL_URL=${api} CLOUDCTL_TOKEN=${userToken}
  open ${api}/status/applications/potato-facts              # its versions, traffic and pods, live (sign in with the token)
  npx cloudctl get applications                             # demo-shop and potato-facts
  npx cloudctl get pods --app demo-shop --watch             # then scale web (below) in another shell
  curl -N ${auth} "$CLOUDCTL/watch?account=demo"            # the live feed every view follows (docs/watch.md)
  open ${api}/status/plans/${planId}   # the plan of step 7: web's image path, before and after

Or through cloudctl's HTTP API (Swagger 2.0: ${api}/v2/api-docs):
  curl ${auth} $CLOUDCTL/credentials                       # accounts: the agent's demo account
  curl ${auth} $CLOUDCTL/task/${started.id}   # the deploy task
  curl ${auth} $CLOUDCTL/cache/introspection               # what the agent streamed, by kind
  curl ${auth} -H 'content-type: application/json' $CLOUDCTL/ops/scaleManifest \\
    -d '{"account":"demo","manifestName":"deployment web","location":"${NAMESPACE}","replicas":5}'
  curl $CLOUDCTL/metrics                                      # cloudctl's metrics (no token needed)

Deploy again through the canary gate (edit the image in ${project}/manifests first, if you like):
  CLOUDCTL_URL=${api} CLOUDCTL_TOKEN=${userToken} npx cloudctl deploy -f ${deployFile}
  curl ${auth} $CLOUDCTL/deployments                        # deployments, newest first
  open ${api}/status/deployments                            # the deployments on the status page

The agent:
  readiness and health     curl ${health}/ready   curl ${health}/health
  accounts, watches, ops   curl ${health}/accounts   curl ${health}/watches   curl ${health}/operations
  Prometheus metrics       curl http://127.0.0.1:${metricsPort}/metrics
  CPU profile              go tool pprof -top http://127.0.0.1:${pprofPort}/debug/pprof/profile?seconds=5
The rest:
  the cluster              KUBECONFIG=${cluster.kubeconfigPath} ${cluster.binaries.path('kubectl')} get pods -n ${NAMESPACE}
  logs                     ${agentLog}   ${cloudctlLog}
  configs                  ${agentConfig}   ${cloudctlConfig}

The cached pod count is printed every 10 s. Ctrl-C stops everything.
`);
  while (!stop.signal.aborted) {
    await sleep(10_000, undefined, { signal: stop.signal }).catch(() => undefined);
    if (stop.signal.aborted) break;
    say(`control plane cache: ${(await kindCounts()).get('pod') ?? 0} pods in account demo`);
  }
} catch (error) {
  if (!stopping) {
    say(`failed: ${error instanceof Error ? error.message : String(error)}`);
    await shutdown(1);
  }
}
