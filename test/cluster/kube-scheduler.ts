// The cluster's kube-scheduler. The issue lists no scheduler, but a Pod only reaches a kwok node, and
// so Running, once something binds it; the real scheduler does that as in any cluster, and costs one
// more link of an already-compiled package tree.
import { join } from 'node:path';
import type { Binaries } from './binary-cache.ts';
import { ClusterProcess } from './cluster-process.ts';

export interface SchedulerSpec {
  readonly binaries: Binaries;
  readonly dir: string;
  readonly kubeconfigPath: string;
}

export function startScheduler(spec: SchedulerSpec): Promise<ClusterProcess> {
  return ClusterProcess.start(
    {
      name: 'kube-scheduler',
      binary: spec.binaries.path('kube-scheduler'),
      logFile: join(spec.dir, 'logs', 'kube-scheduler.log'),
      args: [`--kubeconfig=${spec.kubeconfigPath}`, '--leader-elect=false', '--secure-port=0'],
    },
    spec.binaries.path('reaper'),
  );
}
