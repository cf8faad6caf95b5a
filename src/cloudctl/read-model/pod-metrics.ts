// A pod's metrics as clouddriver shows them (KubernetesPodMetric.ContainerMetric): one entry per
// container, `{containerName, metrics: {"CPU(cores)": "12m", "MEMORY(bytes)": "34Mi"}}`, the columns and
// spelling of `kubectl top pod --containers`, which is where clouddriver reads them. Ours come from
// the store: an agent with `metrics: true` sends the metrics.k8s.io PodMetrics of its namespaces every
// 20 s as a snapshot per namespace, so the store holds the latest per pod and none for a pod gone.
import { z } from 'zod';
import { isRecord } from '../../lib/is-record.ts';
import { formatMebibytes, formatMilliCores } from '../../lib/quantity.ts';
import type { CacheStore, ObjectKey } from '../caching/index.ts';

/** Where the agent's PodMetrics are stored: under the pod's own namespace and name. */
export const POD_METRICS = { group: 'metrics.k8s.io', kind: 'PodMetrics' } as const;

export const CPU_COLUMN = 'CPU(cores)';
export const MEMORY_COLUMN = 'MEMORY(bytes)';

export const containerMetricSchema = z
  .object({
    containerName: z.string(),
    metrics: z
      .record(z.string(), z.string())
      .describe(
        `"${CPU_COLUMN}" in millicores ("12m") and "${MEMORY_COLUMN}" in MiB ("34Mi"), as kubectl top prints them`,
      ),
  })
  .describe('OrchestratorContainerMetric');
export type ContainerMetric = z.infer<typeof containerMetricSchema>;

/** The key of a pod's metrics in the store. */
export function podMetricsKey(pod: { account: string; namespace: string; name: string }): ObjectKey {
  return { account: pod.account, ...POD_METRICS, namespace: pod.namespace, name: pod.name };
}

/**
 * The containers' metrics of a PodMetrics object, in its order. A usage the API left out or wrote in
 * no quantity's spelling is left out of that container's map rather than guessed.
 */
export function containerMetrics(podMetrics: unknown): ContainerMetric[] {
  const containers =
    isRecord(podMetrics) && Array.isArray(podMetrics.containers) ? podMetrics.containers : [];
  return containers.filter(isRecord).map((container) => {
    const usage = isRecord(container.usage) ? container.usage : {};
    const cpu = typeof usage.cpu === 'string' ? formatMilliCores(usage.cpu) : undefined;
    const memory = typeof usage.memory === 'string' ? formatMebibytes(usage.memory) : undefined;
    return {
      containerName: typeof container.name === 'string' ? container.name : '',
      metrics: {
        ...(cpu === undefined ? {} : { [CPU_COLUMN]: cpu }),
        ...(memory === undefined ? {} : { [MEMORY_COLUMN]: memory }),
      },
    };
  });
}

/** The pod's latest metrics from the store; none when its account sends none (or not yet). */
export async function podContainerMetrics(
  cache: Pick<CacheStore, 'object'>,
  pod: { account: string; namespace: string; name: string },
): Promise<ContainerMetric[]> {
  const stored = await cache.object(pod.account, POD_METRICS, [pod.namespace], pod.name);
  return stored === undefined ? [] : containerMetrics(stored.body);
}

/** A pod's usage summed over its containers, for a table's CPU and memory cells. */
export interface PodUsage {
  cpu: string | null;
  memory: string | null;
}

/**
 * The pod's CPU and memory over all its containers, in kubectl top's units; null where no container
 * reports that figure.
 */
export function podUsage(metrics: readonly ContainerMetric[]): PodUsage {
  const total = (column: string, unit: string) => {
    const values = metrics.flatMap((m) => {
      const value = m.metrics[column];
      return value?.endsWith(unit) ? [Number(value.slice(0, -unit.length))] : [];
    });
    return values.length === 0 ? null : `${values.reduce((a, b) => a + b, 0)}${unit}`;
  };
  return { cpu: total(CPU_COLUMN, 'm'), memory: total(MEMORY_COLUMN, 'Mi') };
}
