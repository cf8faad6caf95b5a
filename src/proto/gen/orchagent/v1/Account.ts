// Original file: proto/orchagent/v1/common.proto

import type { Permissions as _orchagent_v1_Permissions, Permissions__Output as _orchagent_v1_Permissions__Output } from '../../orchagent/v1/Permissions.ts';

/**
 * An account the agent serves, with what it found out about its cluster.
 */
export interface Account {
  'name'?: (string);
  'permissions'?: (_orchagent_v1_Permissions | null);
  /**
   * Host (and port) of the account's Kubernetes API server.
   */
  'apiServerHost'?: (string);
  /**
   * The API server's version, such as "v1.33.1".
   */
  'kubernetesVersion'?: (string);
}

/**
 * An account the agent serves, with what it found out about its cluster.
 */
export interface Account__Output {
  'name': (string);
  'permissions': (_orchagent_v1_Permissions__Output | null);
  /**
   * Host (and port) of the account's Kubernetes API server.
   */
  'apiServerHost': (string);
  /**
   * The API server's version, such as "v1.33.1".
   */
  'kubernetesVersion': (string);
}
