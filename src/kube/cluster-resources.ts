// The discovery result of one cluster, cached: kinds are looked up often and change rarely. A kind
// that is not found triggers one refresh (a CRD may have been created since), then an error.

import { CodedError } from '../lib/coded-error.ts';
import { type ApiResource, discoverResources, resourceFor } from './discovery.ts';
import type { KubeHttp } from './kube-http.ts';

export class UnknownKindError extends CodedError<'UNKNOWN_KIND'> {
  constructor(apiVersion: string, kind: string) {
    super('UNKNOWN_KIND', `unknown kind ${kind} in ${apiVersion}: the cluster does not serve it`);
  }
}

export class ClusterResources {
  readonly #http: KubeHttp;
  #resources: Promise<ApiResource[]> | undefined;

  constructor(http: KubeHttp) {
    this.#http = http;
  }

  all(signal?: AbortSignal): Promise<ApiResource[]> {
    this.#resources ??= discoverResources(this.#http, signal).catch((error: unknown) => {
      this.#resources = undefined;
      throw error;
    });
    return this.#resources;
  }

  refresh(): void {
    this.#resources = undefined;
  }

  async resolve(apiVersion: string, kind: string, signal?: AbortSignal): Promise<ApiResource> {
    const cached = resourceFor(await this.all(signal), apiVersion, kind);
    if (cached !== undefined) return cached;
    this.refresh();
    const fresh = resourceFor(await this.all(signal), apiVersion, kind);
    if (fresh === undefined) throw new UnknownKindError(apiVersion, kind);
    return fresh;
  }
}
