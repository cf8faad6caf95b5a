// Where each manifest of a deploy goes: a `namespaceOverride` moves every namespaced manifest, a
// namespaced built-in kind without a namespace goes to the account's default namespace (the agent
// places custom kinds, whose scope only the cluster knows), and a namespace outside the account's
// namespaces is refused with clouddriver's `wrongNamespace` before anything is sent.
import type { AccountDescription } from '../../../../contract/index.ts';
import { isClusterScopedKind } from '../../../../lib/cluster-scoped-kinds.ts';
import { isBuiltInKind } from '../../../caching/index.ts';
import { PayloadError } from '../converter.ts';
import type { Manifest } from './deploy-request.ts';

export function placeManifest(
  manifest: Manifest,
  override: string | undefined,
  account: { name: string; description: AccountDescription },
  path: string,
): Manifest {
  const { description } = account;
  let namespace = manifest.metadata.namespace || undefined;
  if (!isClusterScopedKind(manifest.kind)) {
    if (override) namespace = override;
    else if (namespace === undefined && isBuiltInKind(manifest.apiVersion, manifest.kind)) {
      namespace = description.defaultNamespace;
    }
  } else namespace = undefined;
  if (
    namespace !== undefined &&
    ((description.namespaces.length > 0 && !description.namespaces.includes(namespace)) ||
      description.omitNamespaces.includes(namespace))
  ) {
    throw new PayloadError(
      `${path}.metadata.namespace`,
      `wrongNamespace: account ${account.name} is not configured to deploy to namespace '${namespace}'`,
    );
  }
  const { namespace: _dropped, ...metadata } = manifest.metadata;
  return { ...manifest, metadata: namespace === undefined ? metadata : { ...metadata, namespace } };
}
