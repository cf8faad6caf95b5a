// Where a namespaced manifest that names no namespace goes, as kubectl and clouddriver place it: the
// namespace of the kubeconfig context the account uses (in a pod, the pod's own namespace, which the
// in-cluster context carries), unless the account's allow-list leaves it out; then the first
// namespace of that list; then `default`.
import type { AccountConfig } from '../config/index.ts';

export function defaultNamespace(
  account: Pick<AccountConfig, 'namespaces' | 'omitNamespaces'>,
  contextNamespace: string | undefined,
): string {
  if (contextNamespace && namespaceAllowed(account, contextNamespace)) return contextNamespace;
  return account.namespaces[0] ?? 'default';
}

/** Whether the account may place objects in the namespace: its allow-list and deny-list. */
export function namespaceAllowed(
  account: Pick<AccountConfig, 'namespaces' | 'omitNamespaces'>,
  namespace: string,
): boolean {
  return (
    (account.namespaces.length === 0 || account.namespaces.includes(namespace)) &&
    !account.omitNamespaces.includes(namespace)
  );
}
