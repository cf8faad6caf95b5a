// Original file: proto/orchagent/v1/session.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp.ts';

/**
 * Work for the agent. Its result comes back through OperationResults.Report, with the same id.
 */
export interface Operation {
  /**
   * Unique; a redelivered operation has the same id, so the agent may run it at most once.
   */
  'id'?: (string);
  /**
   * The operation type, such as "deploy", "delete", "scale"; one agent handler per type.
   */
  'type'?: (string);
  'account'?: (string);
  /**
   * The type's payload as JSON (manifests included), validated by the handler's schema.
   */
  'payload'?: (Buffer | Uint8Array | string);
  /**
   * After this instant the control plane no longer waits; the agent should not start the work.
   */
  'deadline'?: (_google_protobuf_Timestamp | null);
  /**
   * Sent again after the session that took it ended, for an operation that is not safe to run twice
   * (a Job, an HTTP request): an agent process that runs or ran it answers with that run's result;
   * one that never received it (it restarted) does not start it and fails it as NOT_STARTED.
   */
  'resumeOnly'?: (boolean);
}

/**
 * Work for the agent. Its result comes back through OperationResults.Report, with the same id.
 */
export interface Operation__Output {
  /**
   * Unique; a redelivered operation has the same id, so the agent may run it at most once.
   */
  'id': (string);
  /**
   * The operation type, such as "deploy", "delete", "scale"; one agent handler per type.
   */
  'type': (string);
  'account': (string);
  /**
   * The type's payload as JSON (manifests included), validated by the handler's schema.
   */
  'payload': (Buffer);
  /**
   * After this instant the control plane no longer waits; the agent should not start the work.
   */
  'deadline': (_google_protobuf_Timestamp__Output | null);
  /**
   * Sent again after the session that took it ended, for an operation that is not safe to run twice
   * (a Job, an HTTP request): an agent process that runs or ran it answers with that run's result;
   * one that never received it (it restarted) does not start it and fails it as NOT_STARTED.
   */
  'resumeOnly': (boolean);
}
