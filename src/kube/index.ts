// Reaching a cluster: kubeconfig resolution, raw HTTP with the cluster's credentials, discovery, and
// the retry policy of `orchestrator.retries`. The agent reaches its accounts through it, and both
// programs' `k8s` secrets engine reads Secrets through it, so it sits outside either program and
// knows neither's config: it takes the few settings it reads as its own narrow types.
export { ClusterResources, UnknownKindError } from './cluster-resources.ts';
export type { ApiResource } from './discovery.ts';
export { discoverResources, resourceFor, resourcePath } from './discovery.ts';
export { GoogleCredentialsError } from './google-credentials.ts';
export { GoogleKeyFileError } from './google-service-account-key.ts';
export type { BearerTokenSource } from './google-token-source.ts';
export { GOOGLE_DEFAULT_SCOPES, GoogleTokenError, GoogleTokenSource } from './google-token-source.ts';
export { KubeApiError } from './kube-api-error.ts';
export type { KubeAccount, ResolvedKubeConfig } from './kube-config.ts';
export { KubeConfigError, resolveKubeConfig } from './kube-config.ts';
export type { KubeExchange, KubeHttpDeps, KubeRequest, KubeResponse, KubeVerb } from './kube-http.ts';
export { KubeHttp, KubeTransportError } from './kube-http.ts';
export type { KubeRetrySettings } from './kube-retry-policy.ts';
export { kubeRetryPolicy } from './kube-retry-policy.ts';
export type { PatchSchema } from './patch-metadata.ts';
export { loadPatchSchema } from './patch-metadata.ts';
export { type WatchEvent, type WatchEventType, watchObject } from './watch-event.ts';
export type { WatchStream } from './watch-stream.ts';
