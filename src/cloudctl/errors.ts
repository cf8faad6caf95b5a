// Every error cloudctl raises on purpose, named and coded in one place so users can search for them.
import { CodedError } from '../lib/coded-error.ts';
export const CLOUDCTL_ERRORS = {
  CONFIG_INVALID: 'the configuration file is invalid',
  DATABASE_UNAVAILABLE: 'the database cannot be opened or migrated',
  LISTEN_FAILED: 'the gRPC port cannot be bound',
  AGENT_NOT_CONNECTED: 'no connected agent serves the account',
  OPERATION_TIMEOUT: 'the agent did not report a result in time',
  OPERATION_FAILED: 'the agent reported the operation as failed',
  OPERATION_UNRECORDED: 'the operation went to the agent but could not be stored: its outcome is unknown',
  SESSION_CLOSED: 'the control plane is stopping',
  TASK_MOVED: 'the task no longer runs here: a client failed it, or another replica took it over',
} as const;

export type CloudctlErrorCode = keyof typeof CLOUDCTL_ERRORS;

export class CloudctlError extends CodedError<CloudctlErrorCode> {
  constructor(code: CloudctlErrorCode, message: string, options?: ErrorOptions) {
    super(code, `${code}: ${message}`, options);
  }
}
