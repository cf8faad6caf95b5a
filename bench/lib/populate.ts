// Fills a real cluster with the objects a benchmark watches: ConfigMaps of about 1 KB and Pods
// (bound to kwok nodes, which then report them Running), spread over namespaces, written through
// the API server with a fixed number of requests in flight.
import type { ApiClient } from '../../test/cluster/api-client.ts';

export interface Population {
  namespaces: number;
  configMaps: number;
  pods: number;
}

/** The share of Pods in a population of `total` objects: a tenth, the rest ConfigMaps. */
export function population(total: number, namespaces = 100): Population {
  const pods = Math.round(total / 10);
  return { namespaces, configMaps: total - pods, pods };
}

export const namespaceName = (i: number) => `bench-${String(i).padStart(3, '0')}`;

// 1 KB of text per ConfigMap, not compressible to nothing: a JSON body close to real ones.
const PAYLOAD = Array.from(
  { length: 16 },
  (_, i) => `line-${i}: ${'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(1)}`,
).join('\n');

function configMap(namespace: string, index: number): object {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${index}`, namespace, labels: { app: 'bench', shard: String(index % 10) } },
    data: { 'settings.yaml': `${PAYLOAD}\nindex: ${index}\n` },
  };
}

function pod(namespace: string, index: number, node: string): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `pod-${index}`, namespace, labels: { app: 'bench' } },
    spec: {
      nodeName: node,
      containers: [
        {
          name: 'app',
          image: 'registry.example/bench:1.0',
          ports: [{ containerPort: 8080 }],
          resources: { requests: { cpu: '10m', memory: '16Mi' } },
        },
      ],
    },
  };
}

/** Runs `work(i)` for i in [from, to) with `concurrency` calls in flight. */
export async function pool(
  from: number,
  to: number,
  concurrency: number,
  work: (i: number) => Promise<void>,
) {
  let next = from;
  const worker = async () => {
    while (next < to) await work(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export async function create(client: ApiClient, path: string, body: object): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const response = await client.request('POST', path, { body });
    if (response.status === 201 || response.status === 409) return;
    // 429 and 5xx under load are the server asking for patience, not a failed benchmark.
    if ((response.status === 429 || response.status >= 500) && attempt < 10) {
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      continue;
    }
    throw new Error(`POST ${path}: HTTP ${response.status}: ${response.text.slice(0, 300)}`);
  }
}

export interface PopulateOptions {
  client: ApiClient;
  /** kwok nodes the Pods are bound to, round robin. */
  nodes: readonly string[];
  /** Objects already there (from an earlier, smaller population): only the rest is created. */
  from?: Population;
  concurrency?: number;
  log?: (line: string) => void;
}

/** Creates what `target` has and `from` lacks; the same index always gives the same object. */
export async function populate(target: Population, options: PopulateOptions): Promise<void> {
  const { client, nodes } = options;
  const from = options.from ?? { namespaces: 0, configMaps: 0, pods: 0 };
  const concurrency = options.concurrency ?? 32;
  const log = options.log ?? (() => {});
  const started = Date.now();
  await pool(from.namespaces, target.namespaces, concurrency, (i) =>
    create(client, '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespaceName(i) },
    }),
  );
  const spread = (i: number) => namespaceName(i % target.namespaces);
  let done = 0;
  const total = target.configMaps - from.configMaps + (target.pods - from.pods);
  const progress = setInterval(() => log(`  populate: ${done}/${total} objects`), 10_000);
  try {
    await pool(from.configMaps, target.configMaps, concurrency, async (i) => {
      await create(client, `/api/v1/namespaces/${spread(i)}/configmaps`, configMap(spread(i), i));
      done++;
    });
    await pool(from.pods, target.pods, concurrency, async (i) => {
      const node = nodes[i % nodes.length] as string;
      await create(client, `/api/v1/namespaces/${spread(i)}/pods`, pod(spread(i), i, node));
      done++;
    });
  } finally {
    clearInterval(progress);
  }
  log(`  populate: ${total} objects in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
