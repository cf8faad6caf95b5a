// The control plane's gRPC endpoint: the feature services it is given (the orchagent.v1 contract),
// grpc.health.v1 and server reflection (so grpcurl works), on plaintext or TLS, with client
// certificates required and verified when a client CA is configured.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  Server,
  ServerCredentials,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation, protoPath as healthProtoPath } from 'grpc-health-check';
import type { Logger } from 'pino';
import { loadContract, repairFileDescriptors } from '../../proto/index.ts';
import type { CloudctlConfig } from '../config/index.ts';
import { CloudctlError } from '../errors.ts';

/** A service to mount: its full name (for health), its definition and its handlers. */
export interface GrpcService {
  name: string;
  definition: ServiceDefinition;
  handlers: UntypedServiceImplementation;
}

export interface GrpcEndpoint {
  /** The bound port (the configured one, or the one picked for port 0). */
  port: number;
  close(): Promise<void>;
}

async function credentials(tls: CloudctlConfig['grpc']['tls']): Promise<ServerCredentials> {
  if (tls === undefined) return ServerCredentials.createInsecure();
  const read = async (setting: string, file: string) => {
    try {
      return await readFile(file);
    } catch (error) {
      throw new CloudctlError('CONFIG_INVALID', `grpc.tls.${setting}: cannot read ${file}: ${String(error)}`);
    }
  };
  const certChain = await read('certFile', tls.certFile);
  const privateKey = await read('keyFile', tls.keyFile);
  const clientCa = tls.clientCaFile === undefined ? null : await read('clientCaFile', tls.clientCaFile);
  return ServerCredentials.createSsl(
    clientCa,
    [{ cert_chain: certChain, private_key: privateKey }],
    clientCa !== null,
  );
}

/**
 * What reflection describes: our contract, plus the health and reflection services themselves, with
 * each file importing the files it references (google.protobuf.Timestamp among them) so that clients
 * such as grpcurl can build the descriptors.
 */
function reflectedDefinitions() {
  const reflectionProto = join(
    dirname(createRequire(import.meta.url).resolve('@grpc/reflection')),
    '../proto/grpc/reflection/v1/reflection.proto',
  );
  return repairFileDescriptors({
    ...loadContract().packageDefinition,
    ...loadSync(healthProtoPath),
    ...loadSync(reflectionProto),
  });
}

export async function startGrpcEndpoint(
  settings: CloudctlConfig['grpc'],
  services: readonly GrpcService[],
  logger: Logger,
): Promise<GrpcEndpoint> {
  const server = new Server({
    // Let agents keep idle sessions alive with HTTP/2 pings as well as heartbeats.
    'grpc.keepalive_permit_without_calls': 1,
  });
  for (const service of services) server.addService(service.definition, service.handlers);
  const health = new HealthImplementation({
    '': 'SERVING',
    ...Object.fromEntries(services.map((service) => [service.name, 'SERVING' as const])),
  });
  health.addToServer(server);
  new ReflectionService(reflectedDefinitions()).addToServer(server);

  const address = settings.host.includes(':')
    ? `[${settings.host}]:${settings.port}`
    : `${settings.host}:${settings.port}`;
  const port = await new Promise<number>((resolve, reject) => {
    void credentials(settings.tls).then(
      (creds) =>
        server.bindAsync(address, creds, (error, bound) => {
          if (error)
            reject(new CloudctlError('LISTEN_FAILED', `gRPC ${address}: ${error.message}`, { cause: error }));
          else resolve(bound);
        }),
      reject,
    );
  });
  logger.info(
    { address, port, tls: settings.tls !== undefined, mtls: settings.tls?.clientCaFile !== undefined },
    'gRPC endpoint listening',
  );
  return {
    port,
    close: async () => {
      health.setStatus('', 'NOT_SERVING');
      // Sessions are endless streams: waiting for them to finish would never return.
      server.forceShutdown();
    },
  };
}
