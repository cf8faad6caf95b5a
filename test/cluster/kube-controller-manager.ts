// The cluster's kube-controller-manager: Deployments become ReplicaSets and Pods, namespaces get
// their `default` service account, deleted objects are garbage-collected.
import { join } from 'node:path';
import type { Binaries } from './binary-cache.ts';
import { ClusterProcess } from './cluster-process.ts';
import type { ClusterCredentials } from './credentials.ts';

export interface ControllerManagerSpec {
  readonly binaries: Binaries;
  readonly dir: string;
  readonly kubeconfigPath: string;
  readonly caFile: string;
  readonly credentials: ClusterCredentials;
}

export function startControllerManager(spec: ControllerManagerSpec): Promise<ClusterProcess> {
  return ClusterProcess.start(
    {
      name: 'kube-controller-manager',
      binary: spec.binaries.path('kube-controller-manager'),
      logFile: join(spec.dir, 'logs', 'kube-controller-manager.log'),
      args: [
        `--kubeconfig=${spec.kubeconfigPath}`,
        // One instance per cluster: electing a leader would only delay the start by a lease period.
        '--leader-elect=false',
        // No HTTPS endpoint: nothing scrapes it, and it would need another free port.
        '--secure-port=0',
        `--service-account-private-key-file=${spec.credentials.serviceAccountKeyFile}`,
        // Published to every namespace as the kube-root-ca.crt ConfigMap, as in a real cluster.
        `--root-ca-file=${spec.caFile}`,
      ],
    },
    spec.binaries.path('reaper'),
  );
}
