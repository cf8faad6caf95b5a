// Original file: proto/orchagent/v1/session.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AgentMessage as _orchagent_v1_AgentMessage, AgentMessage__Output as _orchagent_v1_AgentMessage__Output } from '../../orchagent/v1/AgentMessage.ts';
import type { ControlMessage as _orchagent_v1_ControlMessage, ControlMessage__Output as _orchagent_v1_ControlMessage__Output } from '../../orchagent/v1/ControlMessage.ts';

export interface AgentSessionClient extends grpc.Client {
  /**
   * The first AgentMessage must be `hello`; the first ControlMessage is `registered`. Either side
   * sends `heartbeat` every keep-alive interval. The stream ends when either side closes it.
   */
  Connect(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_orchagent_v1_AgentMessage, _orchagent_v1_ControlMessage__Output>;
  Connect(options?: grpc.CallOptions): grpc.ClientDuplexStream<_orchagent_v1_AgentMessage, _orchagent_v1_ControlMessage__Output>;
  /**
   * The first AgentMessage must be `hello`; the first ControlMessage is `registered`. Either side
   * sends `heartbeat` every keep-alive interval. The stream ends when either side closes it.
   */
  connect(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_orchagent_v1_AgentMessage, _orchagent_v1_ControlMessage__Output>;
  connect(options?: grpc.CallOptions): grpc.ClientDuplexStream<_orchagent_v1_AgentMessage, _orchagent_v1_ControlMessage__Output>;
  
}

export interface AgentSessionHandlers extends grpc.UntypedServiceImplementation {
  /**
   * The first AgentMessage must be `hello`; the first ControlMessage is `registered`. Either side
   * sends `heartbeat` every keep-alive interval. The stream ends when either side closes it.
   */
  Connect: grpc.handleBidiStreamingCall<_orchagent_v1_AgentMessage__Output, _orchagent_v1_ControlMessage>;
  
}

export interface AgentSessionDefinition extends grpc.ServiceDefinition {
  Connect: MethodDefinition<_orchagent_v1_AgentMessage, _orchagent_v1_ControlMessage, _orchagent_v1_AgentMessage__Output, _orchagent_v1_ControlMessage__Output>
}
