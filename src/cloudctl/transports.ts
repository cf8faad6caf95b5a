// The two transports as features, each mounting what the others contribute: the gRPC endpoint agents
// dial (phase grpc: it closes once the work riding on its sessions has stopped) and the HTTP API
// people and tools call (phase http: it closes first, letting the requests in flight finish). Each
// takes its port in `start`; a port it cannot take fails the start.
import type { Logger } from 'pino';
import pkg from '../../package.json' with { type: 'json' };
import type { CloudctlConfig } from './config/index.ts';
import type { ExternalAddress } from './external-address.ts';
import type { Feature } from './feature.ts';
import { type GrpcEndpoint, type GrpcService, startGrpcEndpoint } from './grpc/index.ts';
import { type HttpEndpoint, type HttpServerDeps, startHttpEndpoint } from './http/index.ts';

export interface EndpointFeature extends Feature {
  /** The port it took (the configured one may be 0); only once started. */
  port(): number;
}

function portOf(endpoint: { port: number } | undefined, name: string): number {
  if (endpoint === undefined) throw new Error(`the ${name} endpoint is not started`);
  return endpoint.port;
}

export interface GrpcFeatureDeps {
  services: readonly GrpcService[];
  logger: Logger;
}

export function grpcFeature(settings: CloudctlConfig['grpc'], deps: GrpcFeatureDeps): EndpointFeature {
  let endpoint: GrpcEndpoint | undefined;
  return {
    name: 'grpc',
    phase: 'grpc',
    start: async () => {
      endpoint = await startGrpcEndpoint(settings, deps.services, deps.logger);
    },
    close: () => endpoint?.close(),
    port: () => portOf(endpoint, 'gRPC'),
  };
}

export interface HttpFeatureDeps extends Omit<HttpServerDeps, 'version'> {
  /** Told the port once the API listens: webhook callback URLs name it. */
  address: Pick<ExternalAddress, 'listening'>;
}

export function httpFeature(settings: CloudctlConfig['http'], deps: HttpFeatureDeps): EndpointFeature {
  let endpoint: HttpEndpoint | undefined;
  return {
    name: 'http',
    phase: 'http',
    start: async () => {
      endpoint = await startHttpEndpoint(settings, { ...deps, version: pkg.version });
      deps.address.listening(endpoint.port);
    },
    close: () => endpoint?.close(),
    port: () => portOf(endpoint, 'HTTP'),
  };
}
