// The accounts as the agent wires them: the registry of held accounts, their cluster connections
// (counted and retried as `orchestrator.retries` says), the dynamic-account settings, and the list
// each hello carries. The lifecycle, which needs the connection and the watches, is built apart.
import type { KubeVerb } from '../../kube/index.ts';
import type { Log } from '../../lib/log.ts';
import { causeOf } from '../../lib/log-cause.ts';
import { type AgentConfig, type DynamicAccountSettings, dynamicAccountSettings } from '../config/index.ts';
import { AccountClusters } from './account-clusters.ts';
import { AccountRegistry } from './account-registry.ts';

export interface AccountsDeps {
  config: AgentConfig;
  env: NodeJS.ProcessEnv;
  now: () => Date;
  /** Each Kubernetes API answer and retry, for the metrics. */
  onResponse: (verb: KubeVerb, code: number) => void;
  onRetry: (verb: KubeVerb) => void;
  log: Log;
  serviceAccountRoot?: string;
}

export interface Accounts {
  registry: AccountRegistry;
  clusters: AccountClusters;
  dynamic: DynamicAccountSettings;
  /** The accounts as hello reports them: permissions, API server, version, source and caching. */
  registered(): RegisteredAccount[];
  /** The account's cluster as reached (API server host and version), once its check has passed. */
  clusterOf(name: string): { apiServerHost: string; kubernetesVersion: string } | undefined;
}

export interface RegisteredAccount {
  name: string;
  permissions: { read: string[]; write: string[] };
  apiServerHost: string;
  kubernetesVersion: string;
  source: ReturnType<AccountRegistry['statuses']>[number]['source'];
  caching: boolean;
}

export function createAccounts(deps: AccountsDeps): Accounts {
  const registry = new AccountRegistry(deps.now);
  const clusters = new AccountClusters({
    config: deps.config,
    registry,
    env: deps.env,
    onResponse: deps.onResponse,
    onRetry: (verb, error) => {
      deps.onRetry(verb);
      deps.log.debug(
        { verb, cause: causeOf(error) },
        'retrying a Kubernetes API request (orchestrator.retries)',
      );
    },
    ...(deps.serviceAccountRoot === undefined ? {} : { serviceAccountRoot: deps.serviceAccountRoot }),
  });
  const clusterOf = (name: string) => {
    const info = clusters.info(name);
    return info === undefined
      ? undefined
      : { apiServerHost: new URL(info.server).host, kubernetesVersion: info.kubernetesVersion };
  };
  const registered = () =>
    registry.statuses().flatMap((status): RegisteredAccount[] => {
      const account = registry.config(status.name);
      if (account === undefined) return [];
      return [
        {
          name: account.name,
          permissions: { read: account.permissions.READ ?? [], write: account.permissions.WRITE ?? [] },
          ...(clusterOf(status.name) ?? { apiServerHost: '', kubernetesVersion: '' }),
          source: status.source,
          caching: status.caching,
        },
      ];
    });
  return { registry, clusters, dynamic: dynamicAccountSettings(deps.config), registered, clusterOf };
}
