// Original file: proto/orchagent/v1/caching.proto

import type { GroupVersionKind as _orchagent_v1_GroupVersionKind, GroupVersionKind__Output as _orchagent_v1_GroupVersionKind__Output } from '../../orchagent/v1/GroupVersionKind.ts';
import type { Drift as _orchagent_v1_Drift, Drift__Output as _orchagent_v1_Drift__Output } from '../../orchagent/v1/Drift.ts';

// Original file: proto/orchagent/v1/caching.proto

export const _orchagent_v1_ResourceEvent_Type = {
  TYPE_UNSPECIFIED: 'TYPE_UNSPECIFIED',
  ADDED: 'ADDED',
  MODIFIED: 'MODIFIED',
  DELETED: 'DELETED',
} as const;

export type _orchagent_v1_ResourceEvent_Type =
  | 'TYPE_UNSPECIFIED'
  | 0
  | 'ADDED'
  | 1
  | 'MODIFIED'
  | 2
  | 'DELETED'
  | 3

export type _orchagent_v1_ResourceEvent_Type__Output = typeof _orchagent_v1_ResourceEvent_Type[keyof typeof _orchagent_v1_ResourceEvent_Type]

export interface ResourceEvent {
  'account'?: (string);
  'gvk'?: (_orchagent_v1_GroupVersionKind | null);
  'namespace'?: (string);
  'name'?: (string);
  'resourceVersion'?: (string);
  'type'?: (_orchagent_v1_ResourceEvent_Type);
  /**
   * The object as JSON, secret data scrubbed and managedFields stripped. Empty for DELETED.
   */
  'object'?: (Buffer | Uint8Array | string);
  /**
   * Set on objects sent between SnapshotBegin and SnapshotEnd with the same id.
   */
  'snapshotId'?: (string);
  /**
   * Set on an object cloudctl deployed (it carries the annotation deploy.vendor.io/content-hash) whose
   * content other field managers changed after the agent last wrote it: what its managedFields, cut
   * from `object`, say of them. Absent otherwise.
   */
  'drift'?: (_orchagent_v1_Drift | null);
}

export interface ResourceEvent__Output {
  'account': (string);
  'gvk': (_orchagent_v1_GroupVersionKind__Output | null);
  'namespace': (string);
  'name': (string);
  'resourceVersion': (string);
  'type': (_orchagent_v1_ResourceEvent_Type__Output);
  /**
   * The object as JSON, secret data scrubbed and managedFields stripped. Empty for DELETED.
   */
  'object': (Buffer);
  /**
   * Set on objects sent between SnapshotBegin and SnapshotEnd with the same id.
   */
  'snapshotId': (string);
  /**
   * Set on an object cloudctl deployed (it carries the annotation deploy.vendor.io/content-hash) whose
   * content other field managers changed after the agent last wrote it: what its managedFields, cut
   * from `object`, say of them. Absent otherwise.
   */
  'drift': (_orchagent_v1_Drift__Output | null);
}
