// How a feature's gRPC handler ends a call with a status of its choosing; each feature declares
// the dependencies of its own service beside it.

/** A gRPC status to end a call with. */
export interface RpcError {
  code: number;
  details: string;
}

/** Thrown inside handlers to end the call with this status (anything else becomes UNAVAILABLE). */
export class RpcFailure extends Error {
  readonly code: number;

  constructor(code: number, details: string) {
    super(details);
    this.name = 'RpcFailure';
    this.code = code;
  }
}
