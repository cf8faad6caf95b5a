// A workload for crash tests: ConfigMaps of one application created, updated and deleted in parallel
// against the real API server. Every write sets a revision label to a new number, so a store read
// through cloudctl's read API (which shows labels, not resourceVersions) can still tell a stale copy.
import type { ApiClient } from '../cluster/index.ts';

export const REVISION_LABEL = 'crash-test/revision';
const APPLICATION_ANNOTATION = 'moniker.spinnaker.io/application';

export class ConfigMapChurn {
  readonly #client: ApiClient;
  readonly #namespace: string;
  readonly #application: string;
  readonly #live = new Set<string>();
  #revision = 0;

  constructor(client: ApiClient, namespace: string, application: string) {
    this.#client = client;
    this.#namespace = namespace;
    this.#application = application;
  }

  /** Names that exist in the cluster now (as far as this workload wrote them), in creation order. */
  get live(): string[] {
    return [...this.#live];
  }

  async create(name: string): Promise<void> {
    await this.#write('POST', `/api/v1/namespaces/${this.#namespace}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name,
        namespace: this.#namespace,
        labels: { [REVISION_LABEL]: this.#nextRevision() },
        annotations: { [APPLICATION_ANNOTATION]: this.#application },
      },
      data: { name },
    });
    this.#live.add(name);
  }

  async update(name: string): Promise<void> {
    const revision = this.#nextRevision();
    await this.#write(
      'PATCH',
      `/api/v1/namespaces/${this.#namespace}/configmaps/${name}`,
      { metadata: { labels: { [REVISION_LABEL]: revision } }, data: { name, revision } },
      'application/merge-patch+json',
    );
  }

  async delete(name: string): Promise<void> {
    this.#live.delete(name);
    await this.#write('DELETE', `/api/v1/namespaces/${this.#namespace}/configmaps/${name}`);
  }

  /**
   * `count` objects, each created, every third updated twice and every seventh deleted, `parallel`
   * at a time; `onProgress(done)` runs after each object's changes, so a test can crash a process
   * in the middle of the burst. Resolves when every change has been made.
   */
  async burst(
    prefix: string,
    count: number,
    options: { parallel: number; onProgress?: (done: number) => void },
  ): Promise<void> {
    let next = 0;
    let done = 0;
    const worker = async () => {
      for (let i = next++; i < count; i = next++) {
        const name = `${prefix}-${i}`;
        await this.create(name);
        if (i % 3 === 0) {
          await this.update(name);
          await this.update(name);
        }
        if (i % 7 === 0) await this.delete(name);
        options.onProgress?.(++done);
      }
    };
    await Promise.all(Array.from({ length: options.parallel }, worker));
  }

  /** `count` creates, updates and deletes each, of new and existing objects, in parallel. */
  async mixedChanges(prefix: string, count: number): Promise<void> {
    const existing = this.live;
    const toUpdate = existing.slice(0, count);
    const toDelete = existing.slice(count, 2 * count);
    await Promise.all([
      ...Array.from({ length: count }, (_, i) => this.create(`${prefix}-${i}`)),
      ...toUpdate.map((name) => this.update(name)),
      ...toDelete.map((name) => this.delete(name)),
    ]);
  }

  #nextRevision(): string {
    this.#revision += 1;
    return String(this.#revision);
  }

  async #write(method: string, path: string, body?: unknown, contentType?: string): Promise<void> {
    const response = await this.#client.request(method, path, {
      ...(body === undefined ? {} : { body }),
      ...(contentType === undefined ? {} : { contentType }),
    });
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
  }
}
