// Original file: proto/orchagent/v1/common.proto

import type { Permissions as _orchagent_v1_Permissions, Permissions__Output as _orchagent_v1_Permissions__Output } from '../../orchagent/v1/Permissions.ts';
import type { AccountSource as _orchagent_v1_AccountSource, AccountSource__Output as _orchagent_v1_AccountSource__Output } from '../../orchagent/v1/AccountSource.ts';

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
  /**
   * Where the agent's definition came from: its config file, or an assignment by the control plane.
   */
  'source'?: (_orchagent_v1_AccountSource);
  /**
   * Whether the agent streams this account's resources (false: operations only).
   */
  'caching'?: (boolean);
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
  /**
   * Where the agent's definition came from: its config file, or an assignment by the control plane.
   */
  'source': (_orchagent_v1_AccountSource__Output);
  /**
   * Whether the agent streams this account's resources (false: operations only).
   */
  'caching': (boolean);
}
