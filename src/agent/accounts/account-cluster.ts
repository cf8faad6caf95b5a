// One account's cluster as the features that act on it see it: the account's settings, the HTTP
// client with its credentials, its resources, and the per-cluster cache of patch metadata. The
// watch and the operations both use it; it lives with the accounts it describes, below both.
import type { ClusterResources, KubeHttp, PatchSchema } from '../../kube/index.ts';
import type { AccountConfig, AgentConfig } from '../config/index.ts';

export interface AccountCluster {
  config: AgentConfig;
  account: AccountConfig;
  http: KubeHttp;
  resources: ClusterResources;
  patchSchemas: Map<string, Promise<PatchSchema | undefined>>;
  /** Where namespaced manifests without a namespace go (see default-namespace.ts). */
  defaultNamespace: string;
}
