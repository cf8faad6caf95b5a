// `metrics: true` on an account: every 20 s the pods' metrics (metrics.k8s.io PodMetrics) go to the
// control plane as a snapshot per namespace scope, so metrics of deleted pods disappear with the next
// round. Clusters without the metrics API are common: the agent says so once and keeps checking
// quietly (the API may be installed later).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { resourcePath } from '../../kube/index.ts';
import { isRecord } from '../../lib/is-record.ts';
import { jsonBytes, scrubObject } from '../../lib/object-scrub.ts';
import type { AccountCluster } from '../accounts/index.ts';
import type { CacheItem, WatchScope } from './cache-item.ts';
import type { CoalescingBuffer } from './coalescing-buffer.ts';

export const POD_METRICS_INTERVAL_MS = 20_000;

export interface PodMetricsPollerOptions {
  cluster: AccountCluster;
  buffer: CoalescingBuffer;
  intervalMs?: number;
  onUnavailable: (message: string) => void;
  onError: (error: unknown) => void;
}

export class PodMetricsPoller {
  readonly #o: PodMetricsPollerOptions;
  readonly #stop = new AbortController();
  #loop: Promise<void> | undefined;
  #saidUnavailable = false;
  rounds = 0;

  constructor(options: PodMetricsPollerOptions) {
    this.#o = options;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  async #round(signal: AbortSignal): Promise<void> {
    const { cluster, buffer } = this.#o;
    // Discovery is cached; refreshing it each round notices a metrics API installed later.
    cluster.resources.refresh();
    const resource = (await cluster.resources.all(signal)).find(
      (r) => r.group === 'metrics.k8s.io' && r.kind === 'PodMetrics' && r.preferred,
    );
    if (resource === undefined) {
      if (!this.#saidUnavailable) {
        this.#saidUnavailable = true;
        this.#o.onUnavailable(
          `the metrics API (metrics.k8s.io) is not served by ${cluster.http.server}; pod metrics are not sent until it is`,
        );
      }
      return;
    }
    this.#saidUnavailable = false;
    const namespaces = cluster.account.namespaces.length > 0 ? cluster.account.namespaces : [''];
    for (const namespace of namespaces) {
      const scope: WatchScope = {
        account: cluster.account.name,
        group: resource.group,
        kind: resource.kind,
        namespace,
      };
      const snapshotId = randomUUID();
      await buffer.put({ type: 'snapshotBegin', scope, snapshotId }, signal);
      const answer = await cluster.http.request({
        verb: 'list',
        method: 'GET',
        path: resourcePath(resource, namespace || undefined),
        signal,
      });
      const body = isRecord(answer.body) ? answer.body : {};
      for (const item of Array.isArray(body.items) ? body.items.filter(isRecord) : []) {
        const metadata = isRecord(item.metadata) ? item.metadata : {};
        const event: CacheItem = {
          type: 'event',
          scope,
          version: resource.version,
          namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
          name: String(metadata.name ?? ''),
          resourceVersion: String(metadata.resourceVersion ?? ''),
          event: 'ADDED',
          object: jsonBytes(
            scrubObject({
              apiVersion: `${resource.group}/${resource.version}`,
              kind: resource.kind,
              ...item,
            }),
          ),
          snapshotId,
        };
        await buffer.put(event, signal);
      }
      const listVersion = isRecord(body.metadata) ? String(body.metadata.resourceVersion ?? '') : '';
      await buffer.put({ type: 'snapshotEnd', scope, snapshotId, resourceVersion: listVersion }, signal);
    }
    this.rounds++;
  }

  async #run(): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      try {
        await this.#round(signal);
      } catch (error) {
        if (!signal.aborted) this.#o.onError(error);
      }
      await sleep(this.#o.intervalMs ?? POD_METRICS_INTERVAL_MS, undefined, { signal }).catch(
        () => undefined,
      );
    }
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
  }
}
