// Original file: proto/orchagent/v1/common.proto


/**
 * A Kubernetes group/version/kind. `group` is empty for the core group ("" / "v1" / "Pod").
 */
export interface GroupVersionKind {
  'group'?: (string);
  'version'?: (string);
  'kind'?: (string);
}

/**
 * A Kubernetes group/version/kind. `group` is empty for the core group ("" / "v1" / "Pod").
 */
export interface GroupVersionKind__Output {
  'group': (string);
  'version': (string);
  'kind': (string);
}
