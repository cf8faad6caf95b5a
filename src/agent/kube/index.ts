// Reaching a cluster: kubeconfig resolution, raw HTTP with the cluster's credentials, discovery, and
// the retry policy of `orchestrator.retries`.
export { ClusterResources, UnknownKindError } from './cluster-resources.ts';
export type { ApiResource } from './discovery.ts';
export { discoverResources, resourceFor, resourcePath } from './discovery.ts';
export { KubeApiError } from './kube-api-error.ts';
export type { ResolvedKubeConfig } from './kube-config.ts';
export { KubeConfigError, resolveKubeConfig } from './kube-config.ts';
export type { KubeHttpDeps, KubeRequest, KubeResponse, KubeVerb, WatchEvent } from './kube-http.ts';
export { KubeHttp, KubeTransportError } from './kube-http.ts';
export { kubeRetryPolicy } from './kube-retry-policy.ts';
