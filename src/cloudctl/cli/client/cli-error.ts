// The failures of cloudctl's client commands, each with a code a test or a script can act on, and a
// message that names the cause (the server, the status, what was not found). They all exit 1.
import { CodedError } from '../../../lib/coded-error.ts';

export const CLI_ERROR_CODES = [
  /** No answer at all: the server is down, the name does not resolve, TLS failed. */
  'UNREACHABLE',
  /** 401: no token, or one the server does not know. */
  'UNAUTHORIZED',
  /** 403: the token's user may not do this. */
  'FORBIDDEN',
  /** 404: no such object, or a route the server does not serve. */
  'NOT_FOUND',
  /** Another status, or an answer not shaped as the API document says. */
  'REQUEST_FAILED',
  /** The contexts file cannot be read or names no such context. */
  'CONTEXT',
  /** The sign-in at the OpenID Connect provider did not complete. */
  'SIGN_IN',
] as const;
export type CliErrorCode = (typeof CLI_ERROR_CODES)[number];

export class CliError extends CodedError<CliErrorCode> {}
