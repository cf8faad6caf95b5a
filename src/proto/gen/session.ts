import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from './google/protobuf/Timestamp.ts';
import type { Account as _orchagent_v1_Account, Account__Output as _orchagent_v1_Account__Output } from './orchagent/v1/Account.ts';
import type { AccountDefinition as _orchagent_v1_AccountDefinition, AccountDefinition__Output as _orchagent_v1_AccountDefinition__Output } from './orchagent/v1/AccountDefinition.ts';
import type { AccountStatus as _orchagent_v1_AccountStatus, AccountStatus__Output as _orchagent_v1_AccountStatus__Output } from './orchagent/v1/AccountStatus.ts';
import type { AddAccounts as _orchagent_v1_AddAccounts, AddAccounts__Output as _orchagent_v1_AddAccounts__Output } from './orchagent/v1/AddAccounts.ts';
import type { AgentMessage as _orchagent_v1_AgentMessage, AgentMessage__Output as _orchagent_v1_AgentMessage__Output } from './orchagent/v1/AgentMessage.ts';
import type { AgentSessionClient as _orchagent_v1_AgentSessionClient, AgentSessionDefinition as _orchagent_v1_AgentSessionDefinition } from './orchagent/v1/AgentSession.ts';
import type { CacheDirective as _orchagent_v1_CacheDirective, CacheDirective__Output as _orchagent_v1_CacheDirective__Output } from './orchagent/v1/CacheDirective.ts';
import type { CacheDirectives as _orchagent_v1_CacheDirectives, CacheDirectives__Output as _orchagent_v1_CacheDirectives__Output } from './orchagent/v1/CacheDirectives.ts';
import type { ControlMessage as _orchagent_v1_ControlMessage, ControlMessage__Output as _orchagent_v1_ControlMessage__Output } from './orchagent/v1/ControlMessage.ts';
import type { DeleteAccounts as _orchagent_v1_DeleteAccounts, DeleteAccounts__Output as _orchagent_v1_DeleteAccounts__Output } from './orchagent/v1/DeleteAccounts.ts';
import type { DynamicAccounts as _orchagent_v1_DynamicAccounts, DynamicAccounts__Output as _orchagent_v1_DynamicAccounts__Output } from './orchagent/v1/DynamicAccounts.ts';
import type { GroupVersionKind as _orchagent_v1_GroupVersionKind, GroupVersionKind__Output as _orchagent_v1_GroupVersionKind__Output } from './orchagent/v1/GroupVersionKind.ts';
import type { Heartbeat as _orchagent_v1_Heartbeat, Heartbeat__Output as _orchagent_v1_Heartbeat__Output } from './orchagent/v1/Heartbeat.ts';
import type { Hello as _orchagent_v1_Hello, Hello__Output as _orchagent_v1_Hello__Output } from './orchagent/v1/Hello.ts';
import type { Operation as _orchagent_v1_Operation, Operation__Output as _orchagent_v1_Operation__Output } from './orchagent/v1/Operation.ts';
import type { Permissions as _orchagent_v1_Permissions, Permissions__Output as _orchagent_v1_Permissions__Output } from './orchagent/v1/Permissions.ts';
import type { Registered as _orchagent_v1_Registered, Registered__Output as _orchagent_v1_Registered__Output } from './orchagent/v1/Registered.ts';
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
      AccountDefinition: MessageTypeDefinition<_orchagent_v1_AccountDefinition, _orchagent_v1_AccountDefinition__Output>
      AccountSource: EnumTypeDefinition
      AccountStatus: MessageTypeDefinition<_orchagent_v1_AccountStatus, _orchagent_v1_AccountStatus__Output>
      AddAccounts: MessageTypeDefinition<_orchagent_v1_AddAccounts, _orchagent_v1_AddAccounts__Output>
      AgentMessage: MessageTypeDefinition<_orchagent_v1_AgentMessage, _orchagent_v1_AgentMessage__Output>
      AgentSession: SubtypeConstructor<typeof grpc.Client, _orchagent_v1_AgentSessionClient> & { service: _orchagent_v1_AgentSessionDefinition }
      CacheDirective: MessageTypeDefinition<_orchagent_v1_CacheDirective, _orchagent_v1_CacheDirective__Output>
      CacheDirectives: MessageTypeDefinition<_orchagent_v1_CacheDirectives, _orchagent_v1_CacheDirectives__Output>
      ControlMessage: MessageTypeDefinition<_orchagent_v1_ControlMessage, _orchagent_v1_ControlMessage__Output>
      DeleteAccounts: MessageTypeDefinition<_orchagent_v1_DeleteAccounts, _orchagent_v1_DeleteAccounts__Output>
      DynamicAccounts: MessageTypeDefinition<_orchagent_v1_DynamicAccounts, _orchagent_v1_DynamicAccounts__Output>
      GroupVersionKind: MessageTypeDefinition<_orchagent_v1_GroupVersionKind, _orchagent_v1_GroupVersionKind__Output>
      Heartbeat: MessageTypeDefinition<_orchagent_v1_Heartbeat, _orchagent_v1_Heartbeat__Output>
      Hello: MessageTypeDefinition<_orchagent_v1_Hello, _orchagent_v1_Hello__Output>
      Operation: MessageTypeDefinition<_orchagent_v1_Operation, _orchagent_v1_Operation__Output>
      Permissions: MessageTypeDefinition<_orchagent_v1_Permissions, _orchagent_v1_Permissions__Output>
      Registered: MessageTypeDefinition<_orchagent_v1_Registered, _orchagent_v1_Registered__Output>
      WatchScope: MessageTypeDefinition<_orchagent_v1_WatchScope, _orchagent_v1_WatchScope__Output>
    }
  }
}

