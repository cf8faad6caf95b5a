// Original file: proto/orchagent/v1/operations.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { OperationResult as _orchagent_v1_OperationResult, OperationResult__Output as _orchagent_v1_OperationResult__Output } from '../../orchagent/v1/OperationResult.ts';
import type { ReportAck as _orchagent_v1_ReportAck, ReportAck__Output as _orchagent_v1_ReportAck__Output } from '../../orchagent/v1/ReportAck.ts';

export interface OperationResultsClient extends grpc.Client {
  /**
   * Idempotent by operation id: a result reported again is acknowledged and not applied twice.
   * NOT_FOUND: the control plane never sent this id; retrying will not help.
   */
  Report(argument: _orchagent_v1_OperationResult, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_orchagent_v1_ReportAck__Output>): grpc.ClientUnaryCall;
  Report(argument: _orchagent_v1_OperationResult, metadata: grpc.Metadata, callback: grpc.requestCallback<_orchagent_v1_ReportAck__Output>): grpc.ClientUnaryCall;
  Report(argument: _orchagent_v1_OperationResult, options: grpc.CallOptions, callback: grpc.requestCallback<_orchagent_v1_ReportAck__Output>): grpc.ClientUnaryCall;
  Report(argument: _orchagent_v1_OperationResult, callback: grpc.requestCallback<_orchagent_v1_ReportAck__Output>): grpc.ClientUnaryCall;
  /**
   * Idempotent by operation id: a result reported again is acknowledged and not applied twice.
   * NOT_FOUND: the control plane never sent this id; retrying will not help.
   */
  report(argument: _orchagent_v1_OperationResult, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_orchagent_v1_ReportAck__Output>): grpc.ClientUnaryCall;
  report(argument: _orchagent_v1_OperationResult, metadata: grpc.Metadata, callback: grpc.requestCallback<_orchagent_v1_ReportAck__Output>): grpc.ClientUnaryCall;
  report(argument: _orchagent_v1_OperationResult, options: grpc.CallOptions, callback: grpc.requestCallback<_orchagent_v1_ReportAck__Output>): grpc.ClientUnaryCall;
  report(argument: _orchagent_v1_OperationResult, callback: grpc.requestCallback<_orchagent_v1_ReportAck__Output>): grpc.ClientUnaryCall;
  
}

export interface OperationResultsHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Idempotent by operation id: a result reported again is acknowledged and not applied twice.
   * NOT_FOUND: the control plane never sent this id; retrying will not help.
   */
  Report: grpc.handleUnaryCall<_orchagent_v1_OperationResult__Output, _orchagent_v1_ReportAck>;
  
}

export interface OperationResultsDefinition extends grpc.ServiceDefinition {
  Report: MethodDefinition<_orchagent_v1_OperationResult, _orchagent_v1_ReportAck, _orchagent_v1_OperationResult__Output, _orchagent_v1_ReportAck__Output>
}
