// `startCluster`: a real Kubernetes control plane for tests, on free loopback ports in its own
// temporary directory (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, and kwok for
// fake nodes), with the fault hooks tests need. Several can run at once; each is independent.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from './api-client.ts';
import { type Binaries, locateBinaryCache, resolveBinaries } from './binary-cache.ts';
import type { ClusterProcess } from './cluster-process.ts';
import { writeCredentials } from './credentials.ts';
import { stopwatch } from './elapsed.ts';
import { compactEtcd, startEtcd } from './etcd.ts';
import {
  type FakeKubelet,
  fakeKubeletNodeReady,
  registerFakeKubeletNode,
  startFakeKubelet,
} from './fake-kubelet.ts';
import { freePort, retryOnPortCollision } from './free-port.ts';
import { type ApiServerSpec, auditLogFile, startApiServer } from './kube-apiserver.ts';
import { startControllerManager } from './kube-controller-manager.ts';
import { startScheduler } from './kube-scheduler.ts';
import { writeKubeconfig } from './kubeconfig.ts';
import { type KubeletPki, writeKubeletPki } from './kubelet-pki.ts';
import { createKwokNodes, readyKwokNodes, startKwok } from './kwok.ts';
import {
  aggregationArgs,
  kwokMetricsArgs,
  type MetricsPki,
  registerMetricsApi,
  resourceMetricsAnnotations,
  startMetricsServer,
  writeMetricsPki,
} from './metrics-server.ts';
import { createServiceAccountToken, type TokenOptions } from './service-account-token.ts';

export interface StartClusterOptions {
  /** Ready kwok nodes to create before returning (default 2), so Pods have somewhere to run. */
  readonly nodes?: number;
  /** The API server's watch cache (default true, as in real clusters); see `ApiServerSpec.watchCache`. */
  readonly watchCache?: boolean;
  /** The API server's `--feature-gates` (default: none, the release's defaults). */
  readonly featureGates?: string;
  /** Progress and the start time go here (default: stderr, prefixed `[cluster]`). */
  readonly log?: (line: string) => void;
  /** Have the API server write an audit log of every request as it arrives (`Cluster.auditLogFile`). */
  readonly auditLog?: boolean;
  /** The binaries to run (default: the build cache; fails with the build command if it is empty). */
  readonly binaries?: Binaries;
  /** Where the cluster's temporary directory is created (default: the OS temp dir). */
  readonly parentDir?: string;
  /** Keep the directory (logs, etcd data) after `stop()`; it is always kept when start fails. */
  readonly keepDir?: boolean;
  /** How long each component may take to become ready (default 60 s). */
  readonly timeoutMs?: number;
  /**
   * Start the fake kubelet (fake-kubelet.ts) in this process and register its node, so the API server
   * serves `pods/log` for pods bound to it (default false).
   */
  readonly fakeKubelet?: boolean;
  /**
   * Serve metrics.k8s.io (default false): metrics-server scraping kwok's simulated kubelet resource
   * metrics, registered through the aggregation layer (metrics-server.ts). A pod's usage is its
   * annotations `kwok.x-k8s.io/usage-cpu` and `kwok.x-k8s.io/usage-memory` (else 1m and 1Mi); its
   * PodMetrics appear after metrics-server's second scrape (10 s apart). Not with `fakeKubelet`:
   * kwok would give the fake kubelet's node its own port.
   */
  readonly metrics?: boolean;
}

/** Where the fake kubelet listens and what a test needs to speak to it directly. */
export interface FakeKubeletInfo {
  /** The node whose pods it serves; put a pod there with `spec.nodeName` (the node is tainted). */
  readonly nodeName: string;
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** PEM of the CA that signed its serving certificate and the API server's client certificate. */
  readonly ca: string;
  /** The API server's kubelet client certificate and key, the only credential it accepts. */
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
}

export interface Cluster {
  /** The cluster's temporary directory: kubeconfig, ca.crt, logs/, etcd data. */
  readonly dir: string;
  /** Admin kubeconfig (a JSON file, which every YAML reader accepts). */
  readonly kubeconfigPath: string;
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  /** PEM bundle to trust for `server`; also written to `<dir>/ca.crt`. */
  readonly ca: string;
  readonly caFile: string;
  /** Bearer token of a user in group system:masters: allowed everything. */
  readonly adminToken: string;
  /** etcd's client URL, for tests that look under the API server. */
  readonly etcdUrl: string;
  /** The binaries the cluster runs; kubectl, helm and grpcurl are there too. */
  readonly binaries: Binaries;
  /** The API server's audit log (JSON lines), when started with `auditLog`. */
  readonly auditLogFile?: string;
  /** The fake kubelet, when started with `fakeKubelet`. */
  readonly fakeKubelet?: FakeKubeletInfo;
  /** Milliseconds `startCluster` took. */
  readonly startMs: number;
  /** An API client with the admin token. Closed by `stop()`. */
  readonly client: ApiClient;
  /** Pid of every running component, by name. */
  pids(): Readonly<Record<string, number>>;
  /** Ends every process (SIGTERM, then SIGKILL) and removes the directory. Safe to call twice. */
  stop(): Promise<void>;
  /**
   * Stops the API server and starts it again on the same port and certificate; resolves when ready.
   * `SIGKILL` kills it instead of letting it shut down: open connections die without a word.
   */
  restartApiServer(options?: { signal?: 'SIGTERM' | 'SIGKILL' }): Promise<void>;
  /**
   * Compacts etcd at its current revision and returns it. Lists and watches that reach etcd from an
   * older resourceVersion then get 410 Gone; with `watchCache: false` that is every watch.
   */
  compactEtcd(): Promise<{ revision: number }>;
  /** A token for the service account from the TokenRequest API; it has the RBAC the account has. */
  createServiceAccountToken(
    namespace: string,
    serviceAccount: string,
    options?: TokenOptions,
  ): Promise<string>;
  /** Makes sure kwok nodes `kwok-node-0` … `kwok-node-<count-1>` exist and are Ready; returns their names. */
  kwokNodes(count: number): Promise<string[]>;
}

/**
 * Clients first, then the API server, then etcd. Signalled all at once, etcd would wait on the API
 * server's open streams until its grace period ran out; in this order a stop takes about a second.
 */
const STOP_ORDER = [
  ['metrics-server', 'kwok', 'kube-scheduler', 'kube-controller-manager'],
  ['kube-apiserver'],
  ['etcd'],
];

const defaultLog = (line: string) => process.stderr.write(`[cluster] ${line}\n`);

export async function startCluster(options: StartClusterOptions = {}): Promise<Cluster> {
  if (options.metrics && options.fakeKubelet)
    throw new Error(
      'startCluster: `metrics` and `fakeKubelet` cannot be combined (both serve as the kubelet)',
    );
  const log = options.log ?? defaultLog;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const elapsed = stopwatch();
  const binaries = options.binaries ?? (await resolveBinaries(await locateBinaryCache()));
  const dir = await mkdtemp(join(options.parentDir ?? tmpdir(), 'orch-agent-cluster-'));
  const processes = new Map<string, ClusterProcess>();
  const track = (process: ClusterProcess) => {
    processes.set(process.name, process);
    return process;
  };
  let kubelet: FakeKubelet | undefined;
  const stopAll = async () => {
    await kubelet?.close();
    for (const names of STOP_ORDER) await Promise.all(names.map((name) => processes.get(name)?.stop()));
  };
  let client: ApiClient | undefined;
  try {
    await mkdir(join(dir, 'logs'));
    const credentials = await writeCredentials(dir);
    const kubeletPki: KubeletPki | undefined = options.fakeKubelet ? await writeKubeletPki(dir) : undefined;
    const metricsPki: MetricsPki | undefined = options.metrics ? await writeMetricsPki(dir) : undefined;
    const etcd = await retryOnPortCollision(async () =>
      startEtcd({ binaries, dir, clientPort: await freePort(), peerPort: await freePort() }),
    );
    track(etcd.process);
    const etcdReady = elapsed();

    const { api, spec } = await retryOnPortCollision(async () => {
      const spec: ApiServerSpec = {
        binaries,
        dir,
        port: await freePort(),
        etcdUrl: etcd.url,
        credentials,
        watchCache: options.watchCache ?? true,
        ...(options.featureGates === undefined ? {} : { featureGates: options.featureGates }),
        ...(options.auditLog ? { auditLog: true } : {}),
        ...(kubeletPki === undefined ? {} : { kubelet: kubeletPki }),
        ...(metricsPki === undefined ? {} : { extraArgs: aggregationArgs(metricsPki) }),
      };
      return { spec, api: await startApiServer(spec, timeoutMs) };
    });
    track(api.process);
    const apiReady = elapsed();

    const caFile = join(dir, 'ca.crt');
    const kubeconfigPath = join(dir, 'kubeconfig');
    await writeFile(caFile, api.ca);
    await writeKubeconfig(kubeconfigPath, {
      server: api.server,
      ca: api.ca,
      token: credentials.adminToken,
      name: 'orch-agent-test',
    });
    const admin = new ApiClient({ server: api.server, ca: api.ca, token: credentials.adminToken });
    client = admin;

    const kwokMetricsPort = metricsPki === undefined ? undefined : await freePort();
    const kwokExtraArgs =
      metricsPki === undefined || kwokMetricsPort === undefined
        ? []
        : await kwokMetricsArgs(metricsPki, kwokMetricsPort);
    const [controllerManager, , kwok] = await Promise.all([
      startControllerManager({ binaries, dir, kubeconfigPath, caFile, credentials }).then(track),
      startScheduler({ binaries, dir, kubeconfigPath }).then(track),
      startKwok({ binaries, dir, kubeconfigPath, extraArgs: kwokExtraArgs }).then(track),
    ]);

    const kwokNodes = async (count: number): Promise<string[]> => {
      const names = await createKwokNodes(admin, count, metricsPki ? resourceMetricsAnnotations : undefined);
      await kwok.until(
        `${count} Ready kwok nodes`,
        async () => {
          const ready = new Set(await readyKwokNodes(admin));
          return names.every((n) => ready.has(n)) ? true : undefined;
        },
        timeoutMs,
      );
      return names;
    };
    if (kubeletPki !== undefined) kubelet = await startFakeKubelet(admin, kubeletPki);
    const fakeKubeletNode = async (port: number) => {
      await registerFakeKubeletNode(admin, port);
      await kwok.until('fake kubelet node Ready', () => fakeKubeletNodeReady(admin, port), timeoutMs);
    };
    await Promise.all([
      kwokNodes(options.nodes ?? 2),
      kubelet === undefined ? undefined : fakeKubeletNode(kubelet.port),
      // The service-account controller creating `default` in `default` shows the controller manager
      // is running its controllers, not just alive.
      controllerManager.until(
        'default service account',
        async () =>
          (await admin.get('/api/v1/namespaces/default/serviceaccounts/default')).status === 200
            ? true
            : undefined,
        timeoutMs,
      ),
    ]);
    if (metricsPki !== undefined) {
      const reaper = binaries.path('reaper');
      const { server, port } = await retryOnPortCollision(async () => {
        const port = await freePort();
        const spec = { reaper, dir, kubeconfigPath, pki: metricsPki, port };
        return { server: track(await startMetricsServer(spec, timeoutMs)), port };
      });
      await registerMetricsApi(admin, server, { pki: metricsPki, port, timeoutMs });
    }
    const startMs = elapsed.ms();
    log(
      `started in ${elapsed()} (etcd ready at ${etcdReady}, kube-apiserver at ${apiReady}); ` +
        `KUBECONFIG=${kubeconfigPath}`,
    );

    let stopped: Promise<void> | undefined;
    return {
      dir,
      kubeconfigPath,
      server: api.server,
      ca: api.ca,
      caFile,
      adminToken: credentials.adminToken,
      etcdUrl: etcd.url,
      binaries,
      ...(options.auditLog ? { auditLogFile: auditLogFile(dir) } : {}),
      ...(kubelet === undefined || kubeletPki === undefined
        ? {}
        : {
            fakeKubelet: {
              nodeName: kubelet.nodeName,
              url: `https://127.0.0.1:${kubelet.port}`,
              ca: kubeletPki.ca,
              clientCertFile: kubeletPki.clientCertFile,
              clientKeyFile: kubeletPki.clientKeyFile,
            },
          }),
      startMs,
      client: admin,
      pids: () =>
        Object.fromEntries([...processes].filter(([, p]) => p.alive).map(([name, p]) => [name, p.pid])),
      stop() {
        stopped ??= (async () => {
          await stopAll();
          await admin.close();
          if (!options.keepDir) await rm(dir, { recursive: true, force: true });
        })();
        return stopped;
      },
      async restartApiServer(restart = {}) {
        const current = processes.get('kube-apiserver');
        await (restart.signal === 'SIGKILL' ? current?.kill() : current?.stop());
        track((await startApiServer(spec, timeoutMs)).process);
      },
      async compactEtcd() {
        return { revision: await compactEtcd(etcd.url) };
      },
      createServiceAccountToken: (namespace, serviceAccount, tokenOptions) =>
        createServiceAccountToken(admin, namespace, serviceAccount, tokenOptions),
      kwokNodes,
    };
  } catch (error) {
    await client?.close();
    await stopAll();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`test cluster failed to start (logs kept in ${dir}/logs): ${reason}`, { cause: error });
  }
}
