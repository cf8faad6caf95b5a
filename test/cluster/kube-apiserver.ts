// The cluster's kube-apiserver: its flags, its self-generated serving certificate, and readiness.
// The server writes a CA and a serving certificate signed by it into --cert-dir on first start
// (SANs: 127.0.0.1, the `kubernetes` service IP and names); `apiserver.crt` holds both, and the
// harness hands that bundle out as the cluster CA. A restart finds the files and keeps them, so
// clients keep trusting the server.
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiClient } from './api-client.ts';
import type { Binaries } from './binary-cache.ts';
import { ClusterProcess } from './cluster-process.ts';
import type { ClusterCredentials } from './credentials.ts';
import type { KubeletPki } from './kubelet-pki.ts';

export interface ApiServerSpec {
  readonly binaries: Binaries;
  readonly dir: string;
  readonly port: number;
  readonly etcdUrl: string;
  readonly credentials: ClusterCredentials;
  /**
   * Serve watches and lists from the API server's watch cache (the default of real clusters). Off,
   * every watch goes to etcd, so after `compactEtcd()` a watch from an older resourceVersion gets
   * 410 Gone at once; on, the cache keeps serving recent history from memory.
   */
  readonly watchCache: boolean;
  /** `--feature-gates`, e.g. `WatchList=false` for an API server without streaming lists. */
  readonly featureGates?: string;
  /**
   * Write an audit log (`auditLogFile(dir)`, JSON lines): every request's metadata when the server
   * receives it, so a benchmark can time a client's first request from the server's side.
   */
  readonly auditLog?: boolean;
  /** Certificates to reach the fake kubelet with (kubelet-pki.ts); without, kubelets are unreachable. */
  readonly kubelet?: KubeletPki;
  /** More flags, e.g. the aggregation layer's (metrics-server.ts's `aggregationArgs`). */
  readonly extraArgs?: readonly string[];
}

/**
 * The audit policy of `auditLog`: each request once, at the RequestReceived stage (its
 * `requestReceivedTimestamp`, microseconds), with verb, URI, user and user agent; no bodies.
 */
const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [ResponseStarted, ResponseComplete, Panic]
rules:
  - level: Metadata
`;

export function auditLogFile(dir: string): string {
  return join(dir, 'logs', 'audit.log');
}

const auditPolicyFile = (dir: string) => join(dir, 'audit-policy.yaml');

export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

export function apiServerArgs(spec: ApiServerSpec): string[] {
  const { credentials } = spec;
  return [
    `--etcd-servers=${spec.etcdUrl}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${spec.port}`,
    `--cert-dir=${certDir(spec.dir)}`,
    `--token-auth-file=${credentials.tokenFile}`,
    // RBAC alone: what a token may do is exactly what roles grant it, so permission tests mean
    // something. (Node authorization is for kubelets, which kwok nodes do not have.)
    '--authorization-mode=RBAC',
    `--service-account-issuer=${SERVICE_ACCOUNT_ISSUER}`,
    `--service-account-key-file=${credentials.serviceAccountPublicKeyFile}`,
    `--service-account-signing-key-file=${credentials.serviceAccountKeyFile}`,
    '--service-cluster-ip-range=10.96.0.0/16',
    // The server's own periodic compaction (every 5 minutes by default) would make 410s appear at
    // random in long tests; compaction happens only when a test asks for it.
    '--etcd-compaction-interval=0',
    `--watch-cache=${spec.watchCache}`,
    '--allow-privileged=true',
    '--profiling=false',
    // On SIGTERM, end open watches (clients see the stream close, as in a rolling restart) instead
    // of waiting for them: otherwise shutdown with watchers connected takes the full 60 s timeout.
    '--shutdown-watch-termination-grace-period=2s',
    ...(spec.featureGates === undefined ? [] : [`--feature-gates=${spec.featureGates}`]),
    ...(spec.auditLog
      ? [`--audit-policy-file=${auditPolicyFile(spec.dir)}`, `--audit-log-path=${auditLogFile(spec.dir)}`]
      : []),
    ...(spec.kubelet === undefined ? [] : kubeletArgs(spec.kubelet)),
    ...(spec.extraArgs ?? []),
  ];
}

function kubeletArgs(pki: KubeletPki): string[] {
  return [
    `--kubelet-client-certificate=${pki.clientCertFile}`,
    `--kubelet-client-key=${pki.clientKeyFile}`,
    // Verify the kubelet's serving certificate; without a CA the server would not check it at all.
    `--kubelet-certificate-authority=${pki.caFile}`,
    // InternalIP first, as managed clusters configure it: kwok gives every node a Hostname address
    // (its name), which the default order tries first and which resolves nowhere.
    '--kubelet-preferred-address-types=InternalIP,Hostname,InternalDNS,ExternalDNS,ExternalIP',
  ];
}

export function certDir(dir: string): string {
  return join(dir, 'pki');
}

export interface ApiServer {
  readonly process: ClusterProcess;
  readonly server: string;
  /** The PEM bundle clients trust: the self-generated CA and serving certificate. */
  readonly ca: string;
}

export async function startApiServer(spec: ApiServerSpec, timeoutMs = 60_000): Promise<ApiServer> {
  await mkdir(certDir(spec.dir), { recursive: true, mode: 0o700 });
  if (spec.auditLog) await writeFile(auditPolicyFile(spec.dir), AUDIT_POLICY);
  const process = await ClusterProcess.start(
    {
      name: 'kube-apiserver',
      binary: spec.binaries.path('kube-apiserver'),
      logFile: join(spec.dir, 'logs', 'kube-apiserver.log'),
      args: apiServerArgs(spec),
    },
    spec.binaries.path('reaper'),
  );
  const certFile = join(certDir(spec.dir), 'apiserver.crt');
  // The certificate and key are written before the server listens; the key file last.
  const ca = await process.ready(
    'serving certificate',
    async () => {
      await access(join(certDir(spec.dir), 'apiserver.key'));
      return readFile(certFile, 'utf8');
    },
    timeoutMs,
  );
  const server = `https://127.0.0.1:${spec.port}`;
  const client = new ApiClient({ server, ca, token: spec.credentials.adminToken });
  try {
    // /readyz turns 200 once etcd is reachable and every post-start hook (RBAC bootstrap roles,
    // system namespaces, priority classes) has run: before that, requests can fail for reasons no
    // test means to exercise.
    await process.ready(
      '/readyz',
      async () => ((await client.get('/readyz')).status === 200 ? true : undefined),
      timeoutMs,
    );
  } finally {
    await client.close();
  }
  return { process, server, ca };
}
