// How a feature's gRPC handler ends a call with a status of its choosing; each feature declares
// the dependencies of its own service beside it.
import { CodedError } from '../../lib/coded-error.ts';

/** A gRPC status to end a call with. */
export interface RpcError {
  code: number;
  details: string;
}

/** Thrown inside handlers to end the call with this status (anything else becomes UNAVAILABLE). */
/** Coded by the gRPC status it answers with. */
export class RpcFailure extends CodedError<number> {}
