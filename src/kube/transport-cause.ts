// The error under undici's own: a failed request or body arrives as undici's error, with the system's
// (ECONNREFUSED, a certificate's OpenSSL code) as its cause where there is one. That inner error says
// what happened; undici's says only where it noticed.

import { isRecord } from '../lib/is-record.ts';

export function transportCause(error: unknown): unknown {
  return isRecord(error) && isRecord(error.cause) ? error.cause : error;
}
