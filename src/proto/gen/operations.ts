import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { OperationResult as _orchagent_v1_OperationResult, OperationResult__Output as _orchagent_v1_OperationResult__Output } from './orchagent/v1/OperationResult.ts';
import type { OperationResultsClient as _orchagent_v1_OperationResultsClient, OperationResultsDefinition as _orchagent_v1_OperationResultsDefinition } from './orchagent/v1/OperationResults.ts';
import type { ReportAck as _orchagent_v1_ReportAck, ReportAck__Output as _orchagent_v1_ReportAck__Output } from './orchagent/v1/ReportAck.ts';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  orchagent: {
    v1: {
      OperationResult: MessageTypeDefinition<_orchagent_v1_OperationResult, _orchagent_v1_OperationResult__Output>
      OperationResults: SubtypeConstructor<typeof grpc.Client, _orchagent_v1_OperationResultsClient> & { service: _orchagent_v1_OperationResultsDefinition }
      ReportAck: MessageTypeDefinition<_orchagent_v1_ReportAck, _orchagent_v1_ReportAck__Output>
    }
  }
}

