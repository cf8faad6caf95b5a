// The cluster's etcd: its flags, its readiness, and compaction of its history. Compaction goes through
// etcd's own JSON gateway on the client port (POST /v3/kv/range, /v3/kv/compaction), the same API
// etcdctl speaks over gRPC, so no extra binary is needed.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import type { Binaries } from './binary-cache.ts';
import { ClusterProcess } from './cluster-process.ts';

export interface EtcdSpec {
  readonly binaries: Binaries;
  readonly dir: string;
  readonly clientPort: number;
  readonly peerPort: number;
}

export interface Etcd {
  readonly process: ClusterProcess;
  /** `http://127.0.0.1:<port>`, for `--etcd-servers`. */
  readonly url: string;
}

export async function startEtcd(spec: EtcdSpec): Promise<Etcd> {
  const url = `http://127.0.0.1:${spec.clientPort}`;
  const peer = `http://127.0.0.1:${spec.peerPort}`;
  const dataDir = join(spec.dir, 'etcd');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const process = await ClusterProcess.start(
    {
      name: 'etcd',
      binary: spec.binaries.path('etcd'),
      logFile: join(spec.dir, 'logs', 'etcd.log'),
      args: [
        '--name=test',
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${url}`,
        `--advertise-client-urls=${url}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=test=${peer}`,
        // The data is thrown away with the cluster; skipping fsync makes every write, and so
        // every test, faster.
        '--unsafe-no-fsync',
        '--log-level=warn',
      ],
    },
    spec.binaries.path('reaper'),
  );
  await process.ready(
    'health',
    async () => {
      const response = await request(`${url}/health`);
      const body = await response.body.text();
      return response.statusCode === 200 && body.includes('"health":"true"') ? true : undefined;
    },
    20_000,
  );
  return { process, url };
}

/**
 * Compacts etcd's history up to its current revision and returns that revision. Any read or watch
 * that goes to etcd from an older revision then fails with "compacted", which the API server turns
 * into 410 Gone.
 */
export async function compactEtcd(url: string): Promise<number> {
  const range = await etcdPost(url, '/v3/kv/range', { key: Buffer.from('/').toString('base64') });
  const revision = readRevision(range);
  await etcdPost(url, '/v3/kv/compaction', { revision: String(revision), physical: true });
  return revision;
}

async function etcdPost(url: string, path: string, body: object): Promise<unknown> {
  const response = await request(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`etcd ${path}: HTTP ${response.statusCode}: ${text}`);
  return JSON.parse(text);
}

function readRevision(response: unknown): number {
  // The gateway encodes int64 as a JSON string.
  if (
    typeof response === 'object' &&
    response !== null &&
    'header' in response &&
    typeof response.header === 'object' &&
    response.header !== null &&
    'revision' in response.header
  ) {
    const revision = Number(response.header.revision);
    if (Number.isSafeInteger(revision) && revision > 0) return revision;
  }
  throw new Error(`etcd range response without a revision: ${JSON.stringify(response)}`);
}
