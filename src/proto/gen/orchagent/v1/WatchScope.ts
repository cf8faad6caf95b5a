// Original file: proto/orchagent/v1/common.proto


/**
 * The unit the agent lists and watches, and the control plane keys snapshots and resume versions by:
 * one kind (any version of it) in one namespace of one account. An empty namespace means the kind is
 * watched across all namespaces, or is cluster-scoped.
 */
export interface WatchScope {
  'account'?: (string);
  'group'?: (string);
  'kind'?: (string);
  'namespace'?: (string);
}

/**
 * The unit the agent lists and watches, and the control plane keys snapshots and resume versions by:
 * one kind (any version of it) in one namespace of one account. An empty namespace means the kind is
 * watched across all namespaces, or is cluster-scoped.
 */
export interface WatchScope__Output {
  'account': (string);
  'group': (string);
  'kind': (string);
  'namespace': (string);
}
