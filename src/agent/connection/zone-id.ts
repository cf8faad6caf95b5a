// The agent's default zone, as the spec computes it: `<deployment name>_<namespace>` of the Deployment
// whose pod the agent runs in, so replicas of one Deployment share a zone and a migration request
// naming that zone finds them. Read from what the pod knows of itself (the downward API variables
// the Helm chart sets); no API call, so it needs no RBAC and works before any account connects.
//
// A Deployment's pod is named `<deployment>-<pod-template-hash>-<5 random>`, both generated parts
// from Kubernetes' safe alphabet (no vowels, no 0, 1 or 3). With the hash known (the pod's
// `pod-template-hash` label, POD_TEMPLATE_HASH) the deployment name is exact; without it, the name's
// shape decides. Outside a Deployment's pod (a local run, a bare pod, a StatefulSet) there is no
// default: the zone is empty, and the agent takes only accounts pinned to no zone.

/** What the pod knows of itself: POD_NAME, POD_NAMESPACE (or the service account's), POD_TEMPLATE_HASH. */
export interface PodSelf {
  name: string | undefined;
  namespace: string | undefined;
  templateHash: string | undefined;
}

const SAFE = '[bcdfghjklmnpqrstvwxz2456789]';
/** `<deployment>-<hash>-<suffix>`: the hash is at most 10 characters, the suffix 5. */
const DEPLOYMENT_POD = new RegExp(`^(.+)-${SAFE}{1,10}-${SAFE}{5}$`);

/** The Deployment a pod belongs to, from its name (and its pod-template-hash when known). */
export function deploymentOfPod(podName: string, templateHash: string | undefined): string | undefined {
  if (templateHash !== undefined && templateHash !== '') {
    const marker = `-${templateHash}-`;
    const at = podName.lastIndexOf(marker);
    // The hash is followed by the random suffix only: anything longer is not this ReplicaSet's pod.
    if (at > 0 && /^[a-z0-9]{5}$/.test(podName.slice(at + marker.length))) return podName.slice(0, at);
    return undefined;
  }
  return DEPLOYMENT_POD.exec(podName)?.[1];
}

/** `<deployment>_<namespace>` when the agent runs in a Deployment's pod; undefined otherwise. */
export function defaultZoneId(pod: PodSelf): string | undefined {
  const name = pod.name?.trim();
  const namespace = pod.namespace?.trim();
  if (!name || !namespace) return undefined;
  const deployment = deploymentOfPod(name, pod.templateHash?.trim());
  return deployment === undefined ? undefined : `${deployment}_${namespace}`;
}
