// Built-in kinds that live outside namespaces: a namespace override (a task's or a deployment
// target's) leaves them alone. Custom resources are taken as namespaced, as most are.
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'StorageClass',
  'PriorityClass',
  'IngressClass',
  'RuntimeClass',
  'CSIDriver',
  'CSINode',
  'VolumeAttachment',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'APIService',
  'CertificateSigningRequest',
]);

export function isClusterScopedKind(kind: string): boolean {
  return CLUSTER_SCOPED.has(kind);
}
