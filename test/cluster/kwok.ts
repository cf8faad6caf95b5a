// kwok, "Kubernetes WithOut Kubelet": the `kwok` controller plays kubelet for the fake nodes we create,
// keeping them Ready (lease heartbeats) and moving the Pods bound to them to Running, using kwok's own
// "fast" Stage files shipped in ./kwok-stages/. It manages only nodes carrying our annotation, so a
// node created by a test for other purposes stays untouched.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { ApiClient } from './api-client.ts';
import type { Binaries } from './binary-cache.ts';
import { ClusterProcess } from './cluster-process.ts';

export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';
export const KWOK_NODE_PREFIX = 'kwok-node-';
const STAGES_DIR = fileURLToPath(new URL('./kwok-stages/', import.meta.url));

export interface KwokSpec {
  readonly binaries: Binaries;
  readonly dir: string;
  readonly kubeconfigPath: string;
  /** More flags, e.g. serving simulated resource metrics (metrics-server.ts's `kwokMetricsArgs`). */
  readonly extraArgs?: readonly string[];
}

export async function startKwok(spec: KwokSpec): Promise<ClusterProcess> {
  const stages = (await readdir(STAGES_DIR)).filter((f) => f.endsWith('.yaml')).sort();
  return ClusterProcess.start(
    {
      name: 'kwok',
      binary: spec.binaries.path('kwok'),
      logFile: join(spec.dir, 'logs', 'kwok.log'),
      args: [
        `--kubeconfig=${spec.kubeconfigPath}`,
        // Explicit --config replaces ~/.kwok/kwok.yaml, so a developer's own kwok setup cannot leak in.
        ...stages.map((file) => `--config=${join(STAGES_DIR, file)}`),
        '--manage-all-nodes=false',
        `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`,
        // Heartbeats as node leases, as kubelets do; the node lifecycle controller reads them.
        '--node-lease-duration-seconds=40',
        '--cidr=10.244.0.0/16',
        ...(spec.extraArgs ?? []),
      ],
    },
    spec.binaries.path('reaper'),
  );
}

/** A fake node as kwok documents it, without the NoSchedule taint: there are no real nodes to prefer. */
export function kwokNode(name: string, annotations: Record<string, string> = {}): object {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { [KWOK_NODE_ANNOTATION]: 'fake', 'node.alpha.kubernetes.io/ttl': '0', ...annotations },
      labels: {
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/os': 'linux',
        'kubernetes.io/hostname': name,
        'kubernetes.io/role': 'agent',
        'node-role.kubernetes.io/agent': '',
        type: 'kwok',
      },
    },
    status: {
      allocatable: { cpu: '32', memory: '256Gi', pods: '110' },
      capacity: { cpu: '32', memory: '256Gi', pods: '110' },
    },
  };
}

const NodeList = z.object({
  items: z.array(
    z.object({
      metadata: z.object({ name: z.string() }),
      status: z
        .object({ conditions: z.array(z.object({ type: z.string(), status: z.string() })).optional() })
        .optional(),
    }),
  ),
});

/** Names of the kwok nodes whose Ready condition is True. */
export async function readyKwokNodes(client: ApiClient): Promise<string[]> {
  const response = await client.get('/api/v1/nodes?labelSelector=type%3Dkwok');
  if (response.status !== 200) throw new Error(`list nodes: HTTP ${response.status}: ${response.text}`);
  return NodeList.parse(response.json)
    .items.filter((node) =>
      (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
    )
    .map((node) => node.metadata.name);
}

/**
 * Creates `kwok-node-0` … `kwok-node-<count-1>` where missing; existing ones are left alone.
 * `annotations` gives each node's extra annotations (e.g. where its resource metrics are served).
 */
export async function createKwokNodes(
  client: ApiClient,
  count: number,
  annotations: (node: string) => Record<string, string> = () => ({}),
): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => `${KWOK_NODE_PREFIX}${i}`);
  for (const name of names) {
    const response = await client.request('POST', '/api/v1/nodes', {
      body: kwokNode(name, annotations(name)),
    });
    if (response.status !== 201 && response.status !== 409) {
      throw new Error(`create node ${name}: HTTP ${response.status}: ${response.text}`);
    }
  }
  return names;
}
