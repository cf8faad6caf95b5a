// Loads the orchagent.v1 contract at run time (proto-loader + grpc-js) and gives it the types that
// scripts/proto-gen.ts generated from the same files.
import { fileURLToPath } from 'node:url';
import { type GrpcObject, loadPackageDefinition, type ServiceDefinition } from '@grpc/grpc-js';
import { loadSync, type Options, type PackageDefinition } from '@grpc/proto-loader';
import type { ProtoGrpcType as CachingProto } from './gen/caching.ts';
import type { ProtoGrpcType as OperationsProto } from './gen/operations.ts';
import type { ProtoGrpcType as SessionProto } from './gen/session.ts';

/** Root of the .proto tree; imports inside it are relative to this folder (`orchagent/v1/...`). */
export const PROTO_ROOT = fileURLToPath(new URL('../../proto', import.meta.url));
export const PROTO_FILES = [
  'orchagent/v1/session.proto',
  'orchagent/v1/caching.proto',
  'orchagent/v1/operations.proto',
] as const;

/**
 * Must agree with OPTIONS in scripts/proto-gen.ts: 64-bit integers as decimal strings (no precision
 * loss), enums by name, absent fields filled with defaults, and a virtual field naming the set oneof.
 */
export const LOADER_OPTIONS: Options = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_ROOT],
};

export type OrchAgentProto = SessionProto & CachingProto & OperationsProto;

export interface LoadedContract {
  /** For services that need the raw definition: server reflection. */
  packageDefinition: PackageDefinition;
  proto: OrchAgentProto;
}

function isOrchAgentProto(value: GrpcObject): value is GrpcObject & OrchAgentProto {
  const orchagent = value.orchagent;
  if (typeof orchagent !== 'object' || orchagent === null || !('v1' in orchagent)) return false;
  const v1 = orchagent.v1;
  return (
    typeof v1 === 'object' &&
    v1 !== null &&
    ['AgentSession', 'Caching', 'OperationResults'].every(
      (name) => typeof Reflect.get(v1, name) === 'function',
    )
  );
}

let loaded: LoadedContract | undefined;

/**
 * Parses the .proto files once per process. The generated types describe what proto-loader builds
 * from these files with LOADER_OPTIONS (`npm run proto:check` keeps them in step); the guard checks
 * that the services are there before the loaded object is seen through those types.
 */
export function loadContract(): LoadedContract {
  if (loaded !== undefined) return loaded;
  const packageDefinition = loadSync([...PROTO_FILES], LOADER_OPTIONS);
  const grpcObject = loadPackageDefinition(packageDefinition);
  if (!isOrchAgentProto(grpcObject)) throw new Error(`orchagent.v1 services missing from ${PROTO_ROOT}`);
  loaded = { packageDefinition, proto: grpcObject };
  return loaded;
}

/** Service definitions, for `server.addService`. */
export function serviceDefinitions(): {
  session: ServiceDefinition;
  caching: ServiceDefinition;
  operationResults: ServiceDefinition;
} {
  const { v1 } = loadContract().proto.orchagent;
  return {
    session: v1.AgentSession.service,
    caching: v1.Caching.service,
    operationResults: v1.OperationResults.service,
  };
}
