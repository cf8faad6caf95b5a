// Health and server reflection answer without agent credentials, so probes and grpcurl work; with
// grpcurl from the cluster build present, it is checked too.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { credentials, loadPackageDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestControlPlane, type TestControlPlane } from './harness.ts';

const EXPECTED_SERVICES = [
  'grpc.health.v1.Health',
  'grpc.reflection.v1.ServerReflection',
  'orchagent.v1.AgentSession',
  'orchagent.v1.Caching',
  'orchagent.v1.OperationResults',
];

let cp: TestControlPlane;

beforeAll(async () => {
  cp = await startTestControlPlane();
});

afterAll(async () => {
  await cp?.close();
});

/** A grpc-js client for a service of a .proto file shipped in node_modules, untyped. */
function client(protoFile: string, service: string[]) {
  let node: unknown = loadPackageDefinition(loadSync(protoFile, { enums: String }));
  for (const part of service)
    node = typeof node === 'object' && node !== null ? Reflect.get(node, part) : undefined;
  if (typeof node !== 'function') throw new Error(`${service.join('.')} not in ${protoFile}`);
  return Reflect.construct(node, [cp.address, credentials.createInsecure()]);
}

describe('discovery endpoints', () => {
  it('lists the agent services, health and reflection through server reflection', async () => {
    const proto = join(
      import.meta.dirname,
      '../../node_modules/@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto',
    );
    const reflection = client(proto, ['grpc', 'reflection', 'v1', 'ServerReflection']);
    const names = await new Promise<string[]>((resolve, reject) => {
      const call = reflection.ServerReflectionInfo();
      call.on('data', (response: { listServicesResponse?: { service: Array<{ name: string }> } }) => {
        resolve((response.listServicesResponse?.service ?? []).map((s) => s.name).sort());
        call.end();
      });
      call.on('error', reject);
      call.write({ listServices: '*' });
    });
    reflection.close();
    expect(names).toEqual(EXPECTED_SERVICES);
  });

  it('reports SERVING through grpc.health.v1 for the server and each agent service', async () => {
    const proto = join(
      import.meta.dirname,
      '../../node_modules/grpc-health-check/proto/health/v1/health.proto',
    );
    const health = client(proto, ['grpc', 'health', 'v1', 'Health']);
    const check = (service: string) =>
      new Promise<string>((resolve, reject) =>
        health.Check({ service }, (error: Error | null, response: { status: string }) =>
          error ? reject(error) : resolve(response.status),
        ),
      );
    expect(await check('')).toBe('SERVING');
    expect(await check('orchagent.v1.AgentSession')).toBe('SERVING');
    health.close();
  });

  const cacheDir = process.env.ORCH_AGENT_CACHE_DIR ?? join(homedir(), '.cache/orch-agent');
  const grpcurl = existsSync(join(cacheDir, 'cluster'))
    ? readdirSync(join(cacheDir, 'cluster'))
        .map((d) => join(cacheDir, 'cluster', d, 'bin/grpcurl'))
        .find((path) => existsSync(path))
    : undefined;
  if (grpcurl !== undefined) {
    it('lists the services with grpcurl', async () => {
      const { stdout } = await promisify(execFile)(grpcurl, ['-plaintext', cp.address, 'list']);
      expect(stdout.trim().split('\n').sort()).toEqual(EXPECTED_SERVICES);
    });
  }
});
