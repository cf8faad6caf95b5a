// Where people and webhook jobs reach this cloudctl's HTTP API (a deployment's webhook callback URL
// is built on it): `http.externalUrl`, or the host and the port it listens on.
import { hostname } from 'node:os';
import type { CloudctlConfig } from './config/index.ts';

/** Where people and webhook jobs reach this cloudctl's HTTP API. */
function externalUrl(settings: CloudctlConfig['http'], port: number): string {
  if (settings.externalUrl !== undefined) return settings.externalUrl.replace(/\/+$/, '');
  const host = settings.host === '0.0.0.0' || settings.host === '::' ? hostname() : settings.host;
  return `${settings.tls === undefined ? 'http' : 'https'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export interface ExternalAddress {
  url(): string;
  /** The port the HTTP endpoint took (the configured one may be 0). */
  listening(port: number): void;
}

/** Where people and webhook jobs reach this cloudctl's HTTP API: on the configured port until it listens. */
export function externalAddress(settings: CloudctlConfig['http']): ExternalAddress {
  let port = settings.port;
  return {
    url: () => externalUrl(settings, port),
    listening(actual: number) {
      port = actual;
    },
  };
}
