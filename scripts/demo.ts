// `npm run demo`: a local, working system in one command. It builds the real Kubernetes binaries
// once (with progress), starts a cluster (etcd, kube-apiserver, controllers, kwok nodes), runs
// cloudctl on its embedded database and the agent binary against the cluster, deploys a sample
// application through an agent operation, and shows where to look. Ctrl-C stops everything.
// `--headless` stops by itself once the sample application has reached the control plane (the test
// of this script uses it); it exits 1 with the reason if it does not.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { hashToken, parseConfig, startControlPlane } from '../src/cloudctl/index.ts';
import { locateBinaryCache } from '../test/cluster/binary-cache.ts';
import { buildBinaries } from '../test/cluster/build-binaries.ts';
import { startCluster } from '../test/cluster/cluster.ts';
import { freePort } from '../test/cluster/free-port.ts';

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

const cleanups: Array<() => Promise<void>> = [];
const stop = new AbortController();
let stopping = false;
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  stop.abort();
  say('stopping: agent, control plane, cluster');
  for (const cleanup of cleanups.reverse())
    await cleanup().catch((error: unknown) => say(`cleanup: ${String(error)}`));
  process.exit(code);
}
process.once('SIGINT', () => void shutdown(0));
process.once('SIGTERM', () => void shutdown(0));

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(250);
  }
}

try {
  say('1/5 Kubernetes binaries (built from upstream Go modules once, then cached)');
  const cache = await locateBinaryCache();
  await buildBinaries({ cache, log: (line) => say(`    ${line}`) });

  say('2/5 starting a local cluster (etcd, kube-apiserver, controllers, scheduler, kwok nodes)');
  const cluster = await startCluster({ nodes: 3, log: (line) => say(`    ${line}`) });
  cleanups.push(() => cluster.stop());

  const dir = mkdtempSync(join(tmpdir(), 'orch-agent-demo-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  say(`3/5 starting cloudctl on its embedded database (${join(dir, 'cloudctl-data')})`);
  const token = randomBytes(24).toString('hex');
  const cloudctlLog = pino(
    { level: 'info' },
    pino.destination({ dest: join(dir, 'cloudctl.log'), sync: false }),
  );
  const plane = await startControlPlane(
    parseConfig(
      {
        grpc: { host: '127.0.0.1', port: 0 },
        http: { host: '127.0.0.1', port: 0 },
        agents: [{ id: 'demo-agent', tokenHash: hashToken(token) }],
        database: { dataDir: join(dir, 'cloudctl-data') },
      },
      'demo',
      dir,
    ),
    { logger: cloudctlLog },
  );
  cleanups.push(() => plane.close());

  say('4/5 starting the agent (bin/orch-agent.js run)');
  const [healthPort, metricsPort, pprofPort] = [await freePort(), await freePort(), await freePort()];
  const agentConfig = join(dir, 'agent.yaml');
  writeFileSync(
    agentConfig,
    [
      '# written by npm run demo',
      'variant: B',
      `cloudctl:\n  grpc: 127.0.0.1:${plane.port}\n  insecure: true\n  auth:\n    token: encrypted:env!n:ORCH_AGENT_TOKEN`,
      `orchestrator:\n  accounts:\n    - name: demo\n      orchConfigFile: ${cluster.kubeconfigPath}\n      kinds: [namespace, deployment, replicaSet, pod, service, configMap]`,
      `server:\n  host: 127.0.0.1\n  port: ${healthPort}`,
      `telemetry:\n  enabled: true\n  port: ${metricsPort}`,
      `pprof:\n  enabled: true\n  port: ${pprofPort}`,
      'logging:\n  format: text',
      '',
    ].join('\n'),
  );
  const agentLog = join(dir, 'agent.log');
  const agent = spawn(process.execPath, [join(ROOT, 'bin/orch-agent.js'), 'run', '--config', agentConfig], {
    env: { ...process.env, ORCH_AGENT_TOKEN: token, ORCH_AGENT_ID: 'demo-agent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logStream = createWriteStream(agentLog);
  agent.stdout.pipe(logStream);
  agent.stderr.pipe(logStream);
  cleanups.push(async () => {
    if (agent.exitCode !== null) return;
    agent.kill('SIGTERM');
    await once(agent, 'exit');
  });
  agent.once('exit', (code) => {
    if (!stopping) {
      say(`the agent exited (code ${code}); its log: ${agentLog}`);
      void shutdown(1);
    }
  });
  const health = `http://127.0.0.1:${healthPort}`;
  await until('the agent to be ready (connected and synced)', async () =>
    (await fetch(`${health}/ready`)).ok ? true : undefined,
  );

  say('5/5 deploying the sample application through an agent operation');
  const outcome = await plane.operations.execute({
    account: 'demo',
    type: 'deploy',
    payload: { manifests: SAMPLE_APP },
  });
  if (outcome.outcome !== 'succeeded') throw new Error(`deploy failed: ${outcome.error}`);
  say(`    deploy succeeded (operation ${outcome.id})`);
  const pods = await until(
    '3 running pods of the sample application in the control plane cache',
    async () => {
      const cached = await plane.store.cache.resources('demo', { kind: 'Pod' });
      const running = cached.filter(
        (p) => p.namespace === NAMESPACE && JSON.stringify(p.body).includes('"phase":"Running"'),
      );
      return running.length >= 3 ? running : undefined;
    },
  );
  const cachedKinds = new Map<string, number>();
  for (const resource of await plane.store.cache.resources('demo')) {
    if (resource.namespace === NAMESPACE)
      cachedKinds.set(resource.kind, (cachedKinds.get(resource.kind) ?? 0) + 1);
  }
  say(
    `    the control plane holds, for ${NAMESPACE}: ${[...cachedKinds].map(([k, n]) => `${n} ${k}`).join(', ')}`,
  );
  say(`    running pods: ${pods.map((p) => p.name).join(', ')}`);

  if (headless) {
    say('headless run: the sample application reached the control plane');
    await shutdown(0);
  }
  console.log(`
The system is up. Look at it:
  readiness and health     curl ${health}/ready   curl ${health}/health
  accounts, watches, ops   curl ${health}/accounts   curl ${health}/watches   curl ${health}/operations
  Prometheus metrics       curl http://127.0.0.1:${metricsPort}/metrics
  CPU profile              go tool pprof -top http://127.0.0.1:${pprofPort}/debug/pprof/profile?seconds=5
  the cluster              KUBECONFIG=${cluster.kubeconfigPath} ${cluster.binaries.path('kubectl')} get pods -n ${NAMESPACE}
  the agent's log          ${agentLog}
  its config               ${agentConfig}

Change something and watch it reach the control plane, e.g.
  KUBECONFIG=${cluster.kubeconfigPath} ${cluster.binaries.path('kubectl')} scale deploy/web -n ${NAMESPACE} --replicas=5
The cached pod count is printed every 10 s. Ctrl-C stops everything.
`);
  while (!stop.signal.aborted) {
    await sleep(10_000, undefined, { signal: stop.signal }).catch(() => undefined);
    if (stop.signal.aborted) break;
    const cached = await plane.store.cache.resources('demo', { kind: 'Pod' });
    say(
      `control plane cache: ${cached.filter((p) => p.namespace === NAMESPACE).length} pods in ${NAMESPACE}`,
    );
  }
} catch (error) {
  if (!stopping) {
    say(`failed: ${error instanceof Error ? error.message : String(error)}`);
    await shutdown(1);
  }
}
