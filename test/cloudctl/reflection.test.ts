// Health and server reflection answer without agent credentials, so probes and grpcurl work. The real
// grpcurl (built by `npm run cluster:build`) checks that the descriptors reflection serves are complete
// enough for a client to describe messages and make calls, well-known types included.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { credentials, loadPackageDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateBinaryCache, resolveBinaries } from '../cluster/index.ts';
import { AGENT_TOKEN, helloFor, startTestControlPlane, TestAgent, type TestControlPlane } from './harness.ts';

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
});

describe('grpcurl through server reflection', () => {
  const run = promisify(execFile);
  let grpcurlPath: Promise<string> | undefined;

  /**
   * grpcurl's standard output; a failure carries its standard error (the client's complaint). Without
   * the cluster build each test fails, rather than skips, with a message saying how to build it.
   */
  async function grpcurl(flags: string[], ...command: string[]): Promise<string> {
    grpcurlPath ??= locateBinaryCache()
      .then(resolveBinaries)
      .then((binaries) => binaries.path('grpcurl'));
    const { stdout } = await run(await grpcurlPath, ['-plaintext', ...flags, cp.address, ...command], {
      timeout: 10_000,
    });
    return stdout;
  }

  it('lists the services', async () => {
    expect((await grpcurl([], 'list')).trim().split('\n').sort()).toEqual(EXPECTED_SERVICES);
  });

  it('describes orchagent.v1.Caching, whose messages hold a google.protobuf.Timestamp', async () => {
    const described = await grpcurl([], 'describe', 'orchagent.v1.Caching');
    expect(described).toContain('orchagent.v1.Caching is a service:');
    expect(described).toContain(
      'rpc GetResumeVersions ( .orchagent.v1.GetResumeVersionsRequest ) returns ( .orchagent.v1.GetResumeVersionsResponse );',
    );
  });

  it('describes messages with google.protobuf.Timestamp fields', async () => {
    expect(await grpcurl([], 'describe', 'orchagent.v1.Heartbeat')).toContain(
      '.google.protobuf.Timestamp sentAt = 2;',
    );
    expect(await grpcurl([], 'describe', 'orchagent.v1.ResumeVersion')).toContain(
      '.google.protobuf.Timestamp updatedAt = 3;',
    );
  });

  it('calls an agent RPC whose answer holds a Timestamp, with JSON built from reflected descriptors', async () => {
    const agent = new TestAgent(cp.address, { token: AGENT_TOKEN });
    try {
      await agent.connect(helloFor('agent-1', ['reflected']));
      const scope = { account: 'reflected', group: 'apps', kind: 'Deployment', namespace: 'ns1' };
      await agent.publish([{ sequence: 1, items: [{ bookmark: { scope, resourceVersion: '42' } }] }]);
    } finally {
      agent.close();
    }
    const answer = await grpcurl(
      ['-H', `authorization: Bearer ${AGENT_TOKEN}`, '-d', '{"accounts":["reflected"],"maxAgeMs":"300000"}'],
      'orchagent.v1.Caching/GetResumeVersions',
    );
    expect(JSON.parse(answer)).toEqual({
      versions: [
        {
          scope: { account: 'reflected', group: 'apps', kind: 'Deployment', namespace: 'ns1' },
          resourceVersion: '42',
          // grpcurl writes a Timestamp as RFC 3339 only when it knows the field's type.
          updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/),
        },
      ],
    });
  });

  // health.proto holds a map field: its entry message must carry the name protoc gives it.
  it('calls grpc.health.v1.Health/Check', async () => {
    const answer = await grpcurl(['-d', '{"service":"orchagent.v1.Caching"}'], 'grpc.health.v1.Health/Check');
    expect(JSON.parse(answer)).toEqual({ status: 'SERVING' });
  });
});
