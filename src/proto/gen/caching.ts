import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from './google/protobuf/Timestamp.ts';
import type { Account as _orchagent_v1_Account, Account__Output as _orchagent_v1_Account__Output } from './orchagent/v1/Account.ts';
import type { Bookmark as _orchagent_v1_Bookmark, Bookmark__Output as _orchagent_v1_Bookmark__Output } from './orchagent/v1/Bookmark.ts';
import type { CacheAck as _orchagent_v1_CacheAck, CacheAck__Output as _orchagent_v1_CacheAck__Output } from './orchagent/v1/CacheAck.ts';
import type { CacheBatch as _orchagent_v1_CacheBatch, CacheBatch__Output as _orchagent_v1_CacheBatch__Output } from './orchagent/v1/CacheBatch.ts';
import type { CacheItem as _orchagent_v1_CacheItem, CacheItem__Output as _orchagent_v1_CacheItem__Output } from './orchagent/v1/CacheItem.ts';
import type { CachingClient as _orchagent_v1_CachingClient, CachingDefinition as _orchagent_v1_CachingDefinition } from './orchagent/v1/Caching.ts';
import type { Drift as _orchagent_v1_Drift, Drift__Output as _orchagent_v1_Drift__Output } from './orchagent/v1/Drift.ts';
import type { DriftingManager as _orchagent_v1_DriftingManager, DriftingManager__Output as _orchagent_v1_DriftingManager__Output } from './orchagent/v1/DriftingManager.ts';
import type { GetResumeVersionsRequest as _orchagent_v1_GetResumeVersionsRequest, GetResumeVersionsRequest__Output as _orchagent_v1_GetResumeVersionsRequest__Output } from './orchagent/v1/GetResumeVersionsRequest.ts';
import type { GetResumeVersionsResponse as _orchagent_v1_GetResumeVersionsResponse, GetResumeVersionsResponse__Output as _orchagent_v1_GetResumeVersionsResponse__Output } from './orchagent/v1/GetResumeVersionsResponse.ts';
import type { GroupVersionKind as _orchagent_v1_GroupVersionKind, GroupVersionKind__Output as _orchagent_v1_GroupVersionKind__Output } from './orchagent/v1/GroupVersionKind.ts';
import type { Permissions as _orchagent_v1_Permissions, Permissions__Output as _orchagent_v1_Permissions__Output } from './orchagent/v1/Permissions.ts';
import type { ResourceEvent as _orchagent_v1_ResourceEvent, ResourceEvent__Output as _orchagent_v1_ResourceEvent__Output } from './orchagent/v1/ResourceEvent.ts';
import type { ResumeVersion as _orchagent_v1_ResumeVersion, ResumeVersion__Output as _orchagent_v1_ResumeVersion__Output } from './orchagent/v1/ResumeVersion.ts';
import type { SnapshotBegin as _orchagent_v1_SnapshotBegin, SnapshotBegin__Output as _orchagent_v1_SnapshotBegin__Output } from './orchagent/v1/SnapshotBegin.ts';
import type { SnapshotEnd as _orchagent_v1_SnapshotEnd, SnapshotEnd__Output as _orchagent_v1_SnapshotEnd__Output } from './orchagent/v1/SnapshotEnd.ts';
import type { WatchScope as _orchagent_v1_WatchScope, WatchScope__Output as _orchagent_v1_WatchScope__Output } from './orchagent/v1/WatchScope.ts';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  google: {
    protobuf: {
      Timestamp: MessageTypeDefinition<_google_protobuf_Timestamp, _google_protobuf_Timestamp__Output>
    }
  }
  orchagent: {
    v1: {
      Account: MessageTypeDefinition<_orchagent_v1_Account, _orchagent_v1_Account__Output>
      AccountSource: EnumTypeDefinition
      Bookmark: MessageTypeDefinition<_orchagent_v1_Bookmark, _orchagent_v1_Bookmark__Output>
      CacheAck: MessageTypeDefinition<_orchagent_v1_CacheAck, _orchagent_v1_CacheAck__Output>
      CacheBatch: MessageTypeDefinition<_orchagent_v1_CacheBatch, _orchagent_v1_CacheBatch__Output>
      CacheItem: MessageTypeDefinition<_orchagent_v1_CacheItem, _orchagent_v1_CacheItem__Output>
      Caching: SubtypeConstructor<typeof grpc.Client, _orchagent_v1_CachingClient> & { service: _orchagent_v1_CachingDefinition }
      Drift: MessageTypeDefinition<_orchagent_v1_Drift, _orchagent_v1_Drift__Output>
      DriftingManager: MessageTypeDefinition<_orchagent_v1_DriftingManager, _orchagent_v1_DriftingManager__Output>
      GetResumeVersionsRequest: MessageTypeDefinition<_orchagent_v1_GetResumeVersionsRequest, _orchagent_v1_GetResumeVersionsRequest__Output>
      GetResumeVersionsResponse: MessageTypeDefinition<_orchagent_v1_GetResumeVersionsResponse, _orchagent_v1_GetResumeVersionsResponse__Output>
      GroupVersionKind: MessageTypeDefinition<_orchagent_v1_GroupVersionKind, _orchagent_v1_GroupVersionKind__Output>
      Permissions: MessageTypeDefinition<_orchagent_v1_Permissions, _orchagent_v1_Permissions__Output>
      ResourceEvent: MessageTypeDefinition<_orchagent_v1_ResourceEvent, _orchagent_v1_ResourceEvent__Output>
      ResumeVersion: MessageTypeDefinition<_orchagent_v1_ResumeVersion, _orchagent_v1_ResumeVersion__Output>
      SnapshotBegin: MessageTypeDefinition<_orchagent_v1_SnapshotBegin, _orchagent_v1_SnapshotBegin__Output>
      SnapshotEnd: MessageTypeDefinition<_orchagent_v1_SnapshotEnd, _orchagent_v1_SnapshotEnd__Output>
      WatchScope: MessageTypeDefinition<_orchagent_v1_WatchScope, _orchagent_v1_WatchScope__Output>
    }
  }
}

