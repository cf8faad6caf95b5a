// The cluster shared by every test file of the `cluster` vitest project: started once by
// global-setup.ts in the vitest main process and described to test files through vitest's
// provide/inject. Tests may create and delete objects in it (use their own namespaces), but must not
// fault it; a test that stops, restarts or compacts starts its own cluster with `startCluster`.
import { inject } from 'vitest';
import { ApiClient } from './api-client.ts';
import type { FakeKubeletInfo } from './cluster.ts';

/** What a test file learns about the shared cluster; plain data, since it crosses processes. */
export interface SharedCluster {
  /** The cluster's temporary directory; its components' output is in `logs/`. */
  readonly dir: string;
  readonly kubeconfigPath: string;
  readonly server: string;
  readonly ca: string;
  readonly caFile: string;
  readonly adminToken: string;
  readonly etcdUrl: string;
  /** Folder holding kubectl, helm and grpcurl built for this cluster. */
  readonly binDir: string;
  /** The kubelet of one node, serving its pods' logs (fake-kubelet.ts). */
  readonly fakeKubelet: FakeKubeletInfo;
}

declare module 'vitest' {
  export interface ProvidedContext {
    orchAgentCluster: SharedCluster;
  }
}

export const SHARED_CLUSTER_KEY = 'orchAgentCluster';

/** The shared cluster; fails in a file outside the `cluster` project, which has no global setup. */
export function sharedCluster(): SharedCluster {
  const cluster = inject(SHARED_CLUSTER_KEY);
  if (cluster === undefined) {
    throw new Error(
      'no shared cluster: only files of the `cluster` vitest project get one. Put the test under ' +
        'test/cluster/ or name it `*.cluster.test.ts` (see vitest.config.ts).',
    );
  }
  return cluster;
}

/** An admin API client for the shared cluster; close it when the file is done. */
export function sharedClusterClient(): ApiClient {
  const { server, ca, adminToken } = sharedCluster();
  return new ApiClient({ server, ca, token: adminToken });
}
