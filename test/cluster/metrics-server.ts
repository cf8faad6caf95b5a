// `startCluster({ metrics: true })`: a real metrics.k8s.io API, as a cluster with metrics-server has it.
// metrics-server (built from its Go module in ./metrics-server/) scrapes each node's kubelet resource
// metrics, which kwok simulates: kwok's server answers `/metrics/nodes/{node}/metrics/resource` from
// the Metric and ClusterResourceUsage in ./kwok-metrics/ (kwok's own), with a pod's usage read from
// its annotations `kwok.x-k8s.io/usage-cpu` and `kwok.x-k8s.io/usage-memory` (else 1m and 1Mi).
// metrics-server finds that server as it finds a kubelet: the node's InternalIP (kwok writes
// 127.0.0.1), the port in its status (kwok's --node-port) and the path in the node's
// `metrics.k8s.io/resource-metrics-path` annotation. The API server reaches metrics-server through the
// aggregation layer: an APIService backed by an ExternalName Service naming 127.0.0.1, and the
// front-proxy (requestheader) flags that let metrics-server trust who the API server says is asking.
// One CA made fresh per cluster signs every certificate here: the API server's front-proxy client,
// kwok's serving certificate (which metrics-server verifies) and metrics-server's (which the
// APIService's caBundle pins).
import { readdir, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCa } from '../support/pki.ts';
import { goBinary, testGoCommand } from '../tools/go-binary.ts';
import type { ApiClient } from './api-client.ts';
import { ClusterProcess } from './cluster-process.ts';

const KWOK_METRICS_DIR = fileURLToPath(new URL('./kwok-metrics/', import.meta.url));

/** The pod annotations kwok reads a container's simulated usage from (a quantity, for each container). */
export const USAGE_CPU_ANNOTATION = 'kwok.x-k8s.io/usage-cpu';
export const USAGE_MEMORY_ANNOTATION = 'kwok.x-k8s.io/usage-memory';

/** Where metrics-server reads a node's resource metrics instead of the kubelet's `/metrics/resource`. */
const RESOURCE_METRICS_PATH_ANNOTATION = 'metrics.k8s.io/resource-metrics-path';

/** The name the API server's front-proxy client certificate carries, and the only one trusted. */
const FRONT_PROXY_CLIENT = 'front-proxy-client';

const SERVICE = { namespace: 'kube-system', name: 'metrics-server' };

interface KeyPair {
  readonly certFile: string;
  readonly keyFile: string;
}

export interface MetricsPki {
  readonly ca: string;
  readonly caFile: string;
  /** The API server's client certificate towards aggregated APIs. */
  readonly frontProxyClient: KeyPair;
  /** kwok's serving certificate, for 127.0.0.1 (every node's InternalIP). */
  readonly kwokServing: KeyPair;
  /** metrics-server's serving certificate, for its Service's name. */
  readonly metricsServing: KeyPair;
}

export async function writeMetricsPki(dir: string): Promise<MetricsPki> {
  const ca = await createCa('orch-agent test metrics CA');
  const [frontProxy, kwok, metrics] = await Promise.all([
    ca.issue({ commonName: FRONT_PROXY_CLIENT, usage: 'client' }),
    ca.issue({ commonName: 'kwok', ipAddresses: ['127.0.0.1'], usage: 'server' }),
    ca.issue({
      commonName: SERVICE.name,
      dnsNames: [`${SERVICE.name}.${SERVICE.namespace}.svc`],
      ipAddresses: ['127.0.0.1'],
      usage: 'server',
    }),
  ]);
  const file = (name: string) => join(dir, `metrics-${name}`);
  const pair = async (name: string, issued: { certPem: string; keyPem: string }): Promise<KeyPair> => {
    await writeFile(file(`${name}.crt`), issued.certPem);
    await writeFile(file(`${name}.key`), issued.keyPem, { mode: 0o600 });
    return { certFile: file(`${name}.crt`), keyFile: file(`${name}.key`) };
  };
  await writeFile(file('ca.crt'), ca.certPem);
  return {
    ca: ca.certPem,
    caFile: file('ca.crt'),
    frontProxyClient: await pair('front-proxy-client', frontProxy),
    kwokServing: await pair('kwok', kwok),
    metricsServing: await pair('metrics-server', metrics),
  };
}

/** kube-apiserver's aggregation flags: how it proves itself to metrics-server, and who may. */
export function aggregationArgs(pki: MetricsPki): string[] {
  return [
    `--requestheader-client-ca-file=${pki.caFile}`,
    `--requestheader-allowed-names=${FRONT_PROXY_CLIENT}`,
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    `--proxy-client-cert-file=${pki.frontProxyClient.certFile}`,
    `--proxy-client-key-file=${pki.frontProxyClient.keyFile}`,
  ];
}

/** kwok's flags to serve simulated resource metrics on `port` over TLS, as every node's kubelet. */
export async function kwokMetricsArgs(pki: MetricsPki, port: number): Promise<string[]> {
  const configs = (await readdir(KWOK_METRICS_DIR)).filter((f) => f.endsWith('.yaml')).sort();
  return [
    ...configs.map((file) => `--config=${join(KWOK_METRICS_DIR, file)}`),
    '--node-ip=127.0.0.1',
    `--node-port=${port}`,
    `--server-address=127.0.0.1:${port}`,
    `--tls-cert-file=${pki.kwokServing.certFile}`,
    `--tls-private-key-file=${pki.kwokServing.keyFile}`,
  ];
}

/** The annotation telling metrics-server where kwok serves this node's resource metrics. */
export function resourceMetricsAnnotations(nodeName: string): Record<string, string> {
  return { [RESOURCE_METRICS_PATH_ANNOTATION]: `/metrics/nodes/${nodeName}/metrics/resource` };
}

export interface MetricsServerSpec {
  readonly reaper: string;
  readonly dir: string;
  readonly kubeconfigPath: string;
  readonly pki: MetricsPki;
  readonly port: number;
}

/** True once something accepts connections on the loopback port. */
function accepting(port: number): Promise<true | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(undefined));
  });
}

/**
 * metrics-server, built (or found in the cache) from ./metrics-server/, once it listens: a port taken
 * meanwhile shows as its exit, which `retryOnPortCollision` retries.
 */
export async function startMetricsServer(
  spec: MetricsServerSpec,
  timeoutMs: number,
): Promise<ClusterProcess> {
  const { moduleDir, name } = testGoCommand('metrics-server');
  const server = await ClusterProcess.start(
    {
      name: 'metrics-server',
      binary: await goBinary(moduleDir, name),
      logFile: join(spec.dir, 'logs', 'metrics-server.log'),
      args: [
        '--bind-address=127.0.0.1',
        `--secure-port=${spec.port}`,
        `--tls-cert-file=${spec.pki.metricsServing.certFile}`,
        `--tls-private-key-file=${spec.pki.metricsServing.keyFile}`,
        `--kubeconfig=${spec.kubeconfigPath}`,
        `--authentication-kubeconfig=${spec.kubeconfigPath}`,
        `--authorization-kubeconfig=${spec.kubeconfigPath}`,
        '--kubelet-use-node-status-port',
        '--kubelet-preferred-address-types=InternalIP',
        `--kubelet-certificate-authority=${spec.pki.caFile}`,
        // Its shortest: a pod's CPU is a rate between two scrapes, so the first figures come after two.
        '--metric-resolution=10s',
        '--kubelet-request-timeout=5s',
      ],
    },
    spec.reaper,
  );
  await server.ready('listening', () => accepting(spec.port), timeoutMs);
  return server;
}

/**
 * Registers metrics-server as metrics.k8s.io/v1beta1 and waits until the API server lists PodMetrics
 * through it (the APIService Available, metrics-server's informers synced).
 */
export async function registerMetricsApi(
  client: ApiClient,
  server: ClusterProcess,
  spec: { pki: MetricsPki; port: number; timeoutMs: number },
): Promise<void> {
  const create = async (path: string, body: object) => {
    const response = await client.request('POST', path, { body });
    if (response.status !== 201 && response.status !== 409)
      throw new Error(`POST ${path}: HTTP ${response.status}: ${response.text}`);
  };
  await create(`/api/v1/namespaces/${SERVICE.namespace}/services`, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: SERVICE,
    // The aggregator dials an ExternalName Service's name and the APIService's port.
    spec: { type: 'ExternalName', externalName: '127.0.0.1' },
  });
  await create('/apis/apiregistration.k8s.io/v1/apiservices', {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: 'v1beta1.metrics.k8s.io' },
    spec: {
      group: 'metrics.k8s.io',
      version: 'v1beta1',
      service: { ...SERVICE, port: spec.port },
      caBundle: Buffer.from(spec.pki.ca).toString('base64'),
      groupPriorityMinimum: 100,
      versionPriority: 100,
    },
  });
  await server.until(
    'metrics.k8s.io served through the API server',
    async () => ((await client.get('/apis/metrics.k8s.io/v1beta1/pods')).status === 200 ? true : undefined),
    spec.timeoutMs,
  );
}
