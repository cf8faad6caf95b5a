// vitest global setup of the `cluster` project: starts the shared cluster before its first test file
// and stops it after the last. If the binaries are missing or a component cannot start, the run
// fails here with the reason; no cluster test is silently skipped.
import type { TestProject } from 'vitest/node';
import { startCluster } from './cluster.ts';
import { SHARED_CLUSTER_KEY } from './shared-cluster.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startCluster({
    fakeKubelet: true,
    log: (line) => console.log(`[shared cluster] ${line}`),
  });
  if (cluster.fakeKubelet === undefined)
    throw new Error('the shared cluster started without its fake kubelet');
  project.provide(SHARED_CLUSTER_KEY, {
    dir: cluster.dir,
    kubeconfigPath: cluster.kubeconfigPath,
    server: cluster.server,
    ca: cluster.ca,
    caFile: cluster.caFile,
    adminToken: cluster.adminToken,
    etcdUrl: cluster.etcdUrl,
    binDir: cluster.binaries.binDir,
    fakeKubelet: cluster.fakeKubelet,
  });
  return () => cluster.stop();
}
