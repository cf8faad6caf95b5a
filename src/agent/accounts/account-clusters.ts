// Connects each account to its cluster: resolves the kubeconfig, asks the API server for its version,
// and records the account as ACTIVE (with the server and version) or FAILED (with the cause, the
// control plane's lastAssignmentMsg). Operations and watches get the account's cluster from here. A
// Google token that cannot be had (key file, token endpoint) fails the account the same way.
import {
  ClusterResources,
  KubeHttp,
  type KubeVerb,
  kubeRetryPolicy,
  resolveKubeConfig,
} from '../../kube/index.ts';
import { isRecord } from '../../lib/is-record.ts';
import type { AccountConfig, AgentConfig } from '../config/index.ts';
import type { AccountCluster } from './account-cluster.ts';
import type { AccountRegistry } from './account-registry.ts';
import { defaultNamespace } from './default-namespace.ts';

export interface ClusterInfo {
  server: string;
  kubernetesVersion: string;
}

export interface AccountClustersDeps {
  config: AgentConfig;
  registry: AccountRegistry;
  env: NodeJS.ProcessEnv;
  onResponse: (verb: KubeVerb, code: number) => void;
  onRetry?: (verb: KubeVerb, error: unknown) => void;
  serviceAccountRoot?: string;
}

export class AccountClusters {
  readonly #deps: AccountClustersDeps;
  readonly #clusters = new Map<string, AccountCluster & { info: ClusterInfo }>();

  constructor(deps: AccountClustersDeps) {
    this.#deps = deps;
  }

  /** Resolves and checks one account; never throws: a failure is recorded on the account. */
  async connect(account: AccountConfig, signal?: AbortSignal): Promise<boolean> {
    const { registry } = this.#deps;
    try {
      const resolved = resolveKubeConfig(account, {
        env: this.#deps.env,
        noProxy: this.#deps.config.orchestrator.noProxy,
        ...(this.#deps.serviceAccountRoot === undefined
          ? {}
          : { serviceAccountRoot: this.#deps.serviceAccountRoot }),
      });
      const http = new KubeHttp(resolved.kubeConfig, resolved.server, {
        onResponse: this.#deps.onResponse,
        retry: kubeRetryPolicy(this.#deps.config.orchestrator.retries),
        ...(this.#deps.onRetry === undefined ? {} : { onRetry: this.#deps.onRetry }),
        ...(resolved.tokenSource === undefined ? {} : { tokenSource: resolved.tokenSource }),
      });
      const version = await http.request({ verb: 'get', method: 'GET', path: '/version', signal });
      const kubernetesVersion =
        isRecord(version.body) && typeof version.body.gitVersion === 'string'
          ? version.body.gitVersion
          : 'unknown';
      this.#clusters.set(account.name, {
        config: this.#deps.config,
        account,
        http,
        resources: new ClusterResources(http),
        patchSchemas: new Map(),
        defaultNamespace: defaultNamespace(
          account,
          resolved.kubeConfig.getContextObject(resolved.kubeConfig.getCurrentContext())?.namespace,
        ),
        info: { server: resolved.server, kubernetesVersion },
      });
      registry.setState(
        account.name,
        'ACTIVE',
        `connected to ${resolved.server} (${kubernetesVersion}) via ${resolved.source}`,
      );
      return true;
    } catch (error) {
      this.#clusters.delete(account.name);
      registry.setState(account.name, 'FAILED', error instanceof Error ? error.message : String(error));
      return false;
    }
  }

  disconnect(name: string): void {
    this.#clusters.delete(name);
  }

  get(name: string): AccountCluster | undefined {
    return this.#clusters.get(name);
  }

  info(name: string): ClusterInfo | undefined {
    return this.#clusters.get(name)?.info;
  }
}
