// Every error the HTTP API answers on purpose, named and coded in one place, and the one body shape
// every 4xx and 5xx carries (Spring's, which the clients of the API we mirror already parse).
import { STATUS_CODES } from 'node:http';
import { CodedError } from '../../lib/coded-error.ts';

export const HTTP_ERRORS = {
  REQUEST_INVALID: { status: 400, meaning: 'a parameter or the body is not what the route takes' },
  UNAUTHENTICATED: { status: 401, meaning: 'no bearer token, or one nobody is configured with' },
  FORBIDDEN: { status: 403, meaning: 'the user lacks the permission the request needs' },
  NOT_FOUND: { status: 404, meaning: 'no such route, account, task or record' },
  METHOD_NOT_ALLOWED: { status: 405, meaning: 'the path is served for other methods (see Allow)' },
  CONFLICT: { status: 409, meaning: 'the request contradicts what is stored' },
  GONE: { status: 410, meaning: 'the record existed and may no longer be used (an expired plan)' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: 'the body is not application/json' },
  AGENT_FAILED: {
    status: 502,
    meaning: "the agent could not carry out the request; the message has the agent's error",
  },
  RESPONSE_TOO_LARGE: {
    status: 502,
    meaning: "a Service's answer to a preview URL was over the 1 MiB a preview carries",
  },
  AGENT_UNAVAILABLE: { status: 503, meaning: 'no connected agent serves the account' },
  INTERNAL: { status: 500, meaning: 'cloudctl failed; the log has the cause' },
} as const;

export type HttpErrorCode = keyof typeof HTTP_ERRORS;

export class HttpError extends CodedError<HttpErrorCode> {
  readonly status: number;

  constructor(code: HttpErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
    this.status = HTTP_ERRORS[code].status;
  }
}

export interface ErrorBody {
  timestamp: string;
  status: number;
  /** The status's reason phrase. */
  error: string;
  code: string;
  message: string;
  /** The request path, without the query. */
  path: string;
}

export function errorBody(status: number, code: string, message: string, url: string, now: Date): ErrorBody {
  return {
    timestamp: now.toISOString(),
    status,
    error: STATUS_CODES[status] ?? 'Error',
    code,
    message,
    path: url.split('?')[0] ?? url,
  };
}
