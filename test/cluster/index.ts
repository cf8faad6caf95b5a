// The real-Kubernetes test harness. Files of the `cluster` vitest project (under test/cluster/ or
// named `*.cluster.test.ts`) get the shared cluster through `sharedCluster()`; a test that injects
// faults starts its own with `startCluster()` and stops it in `afterAll`. The shared cluster has a
// fake kubelet on one node (`sharedCluster().fakeKubelet`): pods put there with `spec.nodeName` have
// the logs their `podLogAnnotations` say, served through the API server's `pods/log`.
export {
  ApiClient,
  type ApiClientOptions,
  type ApiResponse,
  type WatchEvent,
  WatchRefusedError,
} from './api-client.ts';
export { type Binaries, type ClusterBinary, locateBinaryCache, resolveBinaries } from './binary-cache.ts';
export { type Cluster, type FakeKubeletInfo, type StartClusterOptions, startCluster } from './cluster.ts';
export { ProcessExitedError } from './cluster-process.ts';
export { FAKE_KUBELET_TAINT, podLogAnnotations } from './fake-kubelet.ts';
export { installOpenBao, OPENBAO_VERSION, resolveOpenBao } from './openbao-binary.ts';
export { type OpenBao, startOpenBao } from './openbao-server.ts';
export { createServiceAccountToken, type TokenOptions } from './service-account-token.ts';
export { type SharedCluster, sharedCluster, sharedClusterClient } from './shared-cluster.ts';
