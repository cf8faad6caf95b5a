// Errors of the control-plane connection, coded in one place (as fastify's FST_ERR_…) so logs and
// callers can tell a bad setting from a failed token command or a refused call.
import { CodedError } from '../../lib/coded-error.ts';

export const CONNECTION_ERRORS = {
  CLOUDCTL_TLS_FILE: 'a TLS file named in cloudctl.tls cannot be read or parsed',
  CLOUDCTL_TLS_KEY_PASSWORD: 'cloudctl.tls.clientKeyFilePassword does not decrypt the client key',
  CLOUDCTL_TOKEN_COMMAND: 'cloudctl.auth.tokenCommand failed or printed no token',
  CLOUDCTL_PROXY:
    'the proxy the environment names (grpc_proxy, HTTPS_PROXY, HTTP_PROXY) is not an http:// URL',
  CLOUDCTL_HANDSHAKE: 'the control plane did not answer hello with registered',
} as const;

export type ConnectionErrorCode = keyof typeof CONNECTION_ERRORS;

export class ConnectionError extends CodedError<ConnectionErrorCode> {}
