// Watches one account's cluster: one ScopeWatcher per target scope, resumed from the control plane's
// resume points where it has them, reconciled when CRDs come and go (a CRD event refreshes discovery,
// then new kinds start and vanished ones stop), plus the synthetic objects of onlyNamespacedResources.
import { backoffSleep } from '../../lib/backoff.ts';
import { isRecord } from '../../lib/is-record.ts';
import { jsonBytes } from '../../lib/object-scrub.ts';
import { type AccountCluster, isPlatformManaged } from '../accounts/index.ts';
import { budgetEveryList } from '../config/index.ts';
import { type CacheItem, type ResumePoint, scopeKey, type WatchScope } from './cache-item.ts';
import type { CoalescingBuffer } from './coalescing-buffer.ts';
import { ScopeWatcher, type ScopeWatcherOptions } from './scope-watcher.ts';
import type { TaskBudget } from './task-budget.ts';
import type { WatchObserver } from './watch-observer.ts';
import type { WatchRegistry } from './watch-registry.ts';
import { syntheticObjects, type WatchTarget, watchTargets } from './watch-targets.ts';

export interface AccountWatcherOptions {
  cluster: AccountCluster;
  buffer: CoalescingBuffer;
  budget: TaskBudget;
  registry: WatchRegistry;
  resume: Map<string, ResumePoint>;
  backoff: ScopeWatcherOptions['backoff'];
  observer: WatchObserver;
  /**
   * Discovering the account's kinds failed, at its start (tried again after a backoff) or after CRD
   * changes (scopes report their own failures to the observer).
   */
  onError?: (scope: WatchScope, error: unknown) => void;
  onForbidden?: (scope: WatchScope, message: string) => void;
  /** CRD changes are collected this long before discovery is refreshed. */
  crdSettleMs?: number;
}

export class AccountWatcher {
  readonly #o: AccountWatcherOptions;
  readonly #running = new Map<
    string,
    { abort: AbortController; done: Promise<void>; watcher: ScopeWatcher }
  >();
  readonly #synced = new Set<string>();
  #stopped = new AbortController();
  #refresh: NodeJS.Timeout | undefined;

  constructor(options: AccountWatcherOptions) {
    this.#o = options;
  }

  get account(): string {
    return this.#o.cluster.account.name;
  }

  /**
   * Every scope's first list has reached the control plane (its snapshot end was acknowledged), or
   * the scope resumed without one, or it may not be read.
   */
  get synced(): boolean {
    return this.#running.size > 0 && [...this.#running.keys()].every((key) => this.#synced.has(key));
  }

  /** The control plane acknowledged a snapshot end of this scope: what it holds of it is whole. */
  snapshotDelivered(key: string): void {
    if (this.#running.has(key)) this.#synced.add(key);
  }

  scopeCount(): number {
    return this.#running.size;
  }

  /**
   * Starts the account's scopes; resolves after the first attempt. Discovery may fail (an API server
   * restarting, or slower than its request retries allow): the account is then started again after
   * the watch restart backoff until discovery answers or the account is stopped, as a scope retries a
   * failed list. Before, a failed first discovery left the account registered with no scope and
   * nothing to try again, so it stayed unwatched until the agent reconnected.
   */
  async start(): Promise<void> {
    if (!(await this.#startOnce())) void this.#startUntilStarted();
  }

  /** One attempt; a failure is told to `onError`. */
  async #startOnce(): Promise<boolean> {
    try {
      await this.#reconcile();
      if (this.#o.cluster.account.onlyNamespacedResources) await this.#sendSynthetic();
      return true;
    } catch (error) {
      if (!this.#stopped.signal.aborted) this.#o.onError?.(this.#accountScope(), error);
      return false;
    }
  }

  async #startUntilStarted(): Promise<void> {
    const signal = this.#stopped.signal;
    const backoff = backoffSleep(this.#o.backoff);
    while (!signal.aborted) {
      await backoff.wait(signal);
      if (signal.aborted || (await this.#startOnce())) return;
    }
  }

  /** The account as a whole, where a failure concerns no one scope. */
  #accountScope(): WatchScope {
    return { account: this.account, group: '', kind: '', namespace: '' };
  }

  async #sendSynthetic() {
    const resources = await this.#o.cluster.resources.all(this.#stopped.signal);
    const { namespaces, crds } = syntheticObjects(resources, this.#o.cluster.account);
    const send = async (
      group: string,
      kind: string,
      version: string,
      objects: Array<Record<string, unknown>>,
    ) => {
      const scope = { account: this.account, group, kind, namespace: '' };
      const snapshotId = `synthetic-${kind}`;
      const items: CacheItem[] = [
        { type: 'snapshotBegin', scope, snapshotId },
        ...objects.map(
          (object): CacheItem => ({
            type: 'event',
            scope,
            version,
            namespace: '',
            name: String(isRecord(object.metadata) ? object.metadata.name : ''),
            resourceVersion: '',
            event: 'ADDED',
            object: jsonBytes(object),
            snapshotId,
          }),
        ),
        { type: 'snapshotEnd', scope, snapshotId, resourceVersion: '' },
      ];
      for (const item of items) await this.#o.buffer.put(item, this.#stopped.signal);
    };
    await send('', 'Namespace', 'v1', namespaces);
    await send('apiextensions.k8s.io', 'CustomResourceDefinition', 'v1', crds);
  }

  #scopeOf(target: WatchTarget): WatchScope {
    return {
      account: this.account,
      group: target.resource.group,
      kind: target.resource.kind,
      namespace: target.namespace,
    };
  }

  async #reconcile() {
    const { cluster } = this.#o;
    const resources = await cluster.resources.all(this.#stopped.signal);
    const targets = new Map(
      watchTargets(resources, cluster.account).map((t) => [scopeKey(this.#scopeOf(t)), t]),
    );
    for (const [key, running] of this.#running) {
      if (targets.has(key)) continue;
      running.abort.abort();
      this.#running.delete(key);
      this.#synced.delete(key);
    }
    for (const [key, target] of targets) {
      if (this.#running.has(key)) continue;
      this.#startScope(key, target);
    }
  }

  #startScope(key: string, target: WatchTarget) {
    const abort = new AbortController();
    const signal = AbortSignal.any([abort.signal, this.#stopped.signal]);
    const scope = this.#scopeOf(target);
    const resume = this.#o.resume.get(key);
    const isCrds =
      target.resource.group === 'apiextensions.k8s.io' && target.resource.kind === 'CustomResourceDefinition';
    const watcher = new ScopeWatcher({
      http: this.#o.cluster.http,
      resource: target.resource,
      scope,
      buffer: this.#o.buffer,
      budget: this.#o.budget,
      budgetEveryList: budgetEveryList(this.#o.cluster.config),
      registry: this.#o.registry,
      ...(resume === undefined ? {} : { resumeFrom: resume.resourceVersion }),
      ...(target.fieldSelector === undefined ? {} : { fieldSelector: target.fieldSelector }),
      ...(this.#o.cluster.account.onlyPlatformManaged ? { accept: isPlatformManaged } : {}),
      ...(isCrds ? { onEvent: () => this.#crdChanged() } : {}),
      observer: this.#o.observer,
      onForbidden: (message) => {
        // Nothing to sync that the account may see: readiness must not wait for it.
        this.#synced.add(key);
        this.#o.onForbidden?.(scope, message);
      },
      backoff: this.#o.backoff,
    });
    if (resume !== undefined) this.#synced.add(key);
    const done = watcher.run(signal);
    this.#running.set(key, { abort, done, watcher });
  }

  /** CRDs created or deleted at run time: refresh discovery once they settle, then reconcile. */
  #crdChanged() {
    if (this.#refresh !== undefined) clearTimeout(this.#refresh);
    this.#refresh = setTimeout(() => {
      this.#refresh = undefined;
      this.#o.cluster.resources.refresh();
      this.#reconcile().catch((error: unknown) => this.#o.onError?.(this.#accountScope(), error));
    }, this.#o.crdSettleMs ?? 1000);
  }

  /**
   * Stops every watch, then buffers each scope's final bookmark (while `flush` allows: the uplink
   * may be unable to make room), so the next agent resumes from where this one stopped.
   */
  async stop(flush: AbortSignal = AbortSignal.abort()): Promise<void> {
    if (this.#refresh !== undefined) clearTimeout(this.#refresh);
    this.#stopped.abort();
    const running = [...this.#running.values()];
    await Promise.all(running.map((r) => r.done));
    try {
      for (const { watcher } of running) {
        const bookmark = watcher.finalBookmark();
        if (bookmark !== undefined) await this.#o.buffer.put(bookmark, flush);
      }
    } catch {
      // Out of time: the control plane keeps the older resume points, and the next agent replays.
    }
    this.#running.clear();
    this.#o.registry.remove(this.account);
  }
}
