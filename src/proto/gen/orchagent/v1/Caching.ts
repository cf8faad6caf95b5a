// Original file: proto/orchagent/v1/caching.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CacheAck as _orchagent_v1_CacheAck, CacheAck__Output as _orchagent_v1_CacheAck__Output } from '../../orchagent/v1/CacheAck.ts';
import type { CacheBatch as _orchagent_v1_CacheBatch, CacheBatch__Output as _orchagent_v1_CacheBatch__Output } from '../../orchagent/v1/CacheBatch.ts';
import type { GetResumeVersionsRequest as _orchagent_v1_GetResumeVersionsRequest, GetResumeVersionsRequest__Output as _orchagent_v1_GetResumeVersionsRequest__Output } from '../../orchagent/v1/GetResumeVersionsRequest.ts';
import type { GetResumeVersionsResponse as _orchagent_v1_GetResumeVersionsResponse, GetResumeVersionsResponse__Output as _orchagent_v1_GetResumeVersionsResponse__Output } from '../../orchagent/v1/GetResumeVersionsResponse.ts';

export interface CachingClient extends grpc.Client {
  /**
   * The last stored resource version per watch scope, with when it was stored.
   */
  GetResumeVersions(argument: _orchagent_v1_GetResumeVersionsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_orchagent_v1_GetResumeVersionsResponse__Output>): grpc.ClientUnaryCall;
  GetResumeVersions(argument: _orchagent_v1_GetResumeVersionsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_orchagent_v1_GetResumeVersionsResponse__Output>): grpc.ClientUnaryCall;
  GetResumeVersions(argument: _orchagent_v1_GetResumeVersionsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_orchagent_v1_GetResumeVersionsResponse__Output>): grpc.ClientUnaryCall;
  GetResumeVersions(argument: _orchagent_v1_GetResumeVersionsRequest, callback: grpc.requestCallback<_orchagent_v1_GetResumeVersionsResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The last stored resource version per watch scope, with when it was stored.
   */
  getResumeVersions(argument: _orchagent_v1_GetResumeVersionsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_orchagent_v1_GetResumeVersionsResponse__Output>): grpc.ClientUnaryCall;
  getResumeVersions(argument: _orchagent_v1_GetResumeVersionsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_orchagent_v1_GetResumeVersionsResponse__Output>): grpc.ClientUnaryCall;
  getResumeVersions(argument: _orchagent_v1_GetResumeVersionsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_orchagent_v1_GetResumeVersionsResponse__Output>): grpc.ClientUnaryCall;
  getResumeVersions(argument: _orchagent_v1_GetResumeVersionsRequest, callback: grpc.requestCallback<_orchagent_v1_GetResumeVersionsResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * The agent sends batches; the control plane acknowledges each batch, in order, once it is stored.
   * The agent keeps a bounded number of unacknowledged batches in flight: acknowledgements are its
   * backpressure. Unacknowledged batches are sent again on a new stream.
   */
  Publish(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_orchagent_v1_CacheBatch, _orchagent_v1_CacheAck__Output>;
  Publish(options?: grpc.CallOptions): grpc.ClientDuplexStream<_orchagent_v1_CacheBatch, _orchagent_v1_CacheAck__Output>;
  /**
   * The agent sends batches; the control plane acknowledges each batch, in order, once it is stored.
   * The agent keeps a bounded number of unacknowledged batches in flight: acknowledgements are its
   * backpressure. Unacknowledged batches are sent again on a new stream.
   */
  publish(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_orchagent_v1_CacheBatch, _orchagent_v1_CacheAck__Output>;
  publish(options?: grpc.CallOptions): grpc.ClientDuplexStream<_orchagent_v1_CacheBatch, _orchagent_v1_CacheAck__Output>;
  
}

export interface CachingHandlers extends grpc.UntypedServiceImplementation {
  /**
   * The last stored resource version per watch scope, with when it was stored.
   */
  GetResumeVersions: grpc.handleUnaryCall<_orchagent_v1_GetResumeVersionsRequest__Output, _orchagent_v1_GetResumeVersionsResponse>;
  
  /**
   * The agent sends batches; the control plane acknowledges each batch, in order, once it is stored.
   * The agent keeps a bounded number of unacknowledged batches in flight: acknowledgements are its
   * backpressure. Unacknowledged batches are sent again on a new stream.
   */
  Publish: grpc.handleBidiStreamingCall<_orchagent_v1_CacheBatch__Output, _orchagent_v1_CacheAck>;
  
}

export interface CachingDefinition extends grpc.ServiceDefinition {
  GetResumeVersions: MethodDefinition<_orchagent_v1_GetResumeVersionsRequest, _orchagent_v1_GetResumeVersionsResponse, _orchagent_v1_GetResumeVersionsRequest__Output, _orchagent_v1_GetResumeVersionsResponse__Output>
  Publish: MethodDefinition<_orchagent_v1_CacheBatch, _orchagent_v1_CacheAck, _orchagent_v1_CacheBatch__Output, _orchagent_v1_CacheAck__Output>
}
