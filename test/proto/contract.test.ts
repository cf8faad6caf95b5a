// The orchagent.v1 contract as loaded at run time: the services, their streaming shapes, and
// messages surviving the wire with JSON bytes and timestamps intact.
import { describe, expect, it } from 'vitest';
import { fromTimestamp, loadContract, serviceDefinitions, toTimestamp } from '../../src/proto/index.ts';

describe('orchagent.v1 contract', () => {
  it('offers one bidirectional session, a bidirectional cache stream with a unary resume query, and unary results', () => {
    const services = serviceDefinitions();
    const shape = (service: typeof services.session) =>
      Object.fromEntries(
        Object.values(service).map((m) => [
          m.path,
          `${m.requestStream ? 'stream' : 'unary'}->${m.responseStream ? 'stream' : 'unary'}`,
        ]),
      );
    expect(shape(services.session)).toEqual({ '/orchagent.v1.AgentSession/Connect': 'stream->stream' });
    expect(shape(services.caching)).toEqual({
      '/orchagent.v1.Caching/Publish': 'stream->stream',
      '/orchagent.v1.Caching/GetResumeVersions': 'unary->unary',
    });
    expect(shape(services.operationResults)).toEqual({
      '/orchagent.v1.OperationResults/Report': 'unary->unary',
    });
  });

  it('carries an operation down with its JSON payload bytes and deadline unchanged', () => {
    const connect = serviceDefinitions().session.Connect;
    if (connect === undefined) throw new Error('Connect missing');
    const payload = Buffer.from(
      JSON.stringify({ manifests: [{ kind: 'Deployment', spec: { replicas: 2 } }] }),
    );
    const deadline = new Date('2026-03-04T05:06:07.891Z');
    const wire = connect.responseSerialize({
      operation: { id: 'op-1', type: 'deploy', account: 'prod', payload, deadline: toTimestamp(deadline) },
    });
    const decoded = connect.responseDeserialize(wire);
    expect(decoded.message).toBe('operation');
    expect(decoded.operation?.payload.equals(payload)).toBe(true);
    expect(decoded.operation?.deadline && fromTimestamp(decoded.operation.deadline).toISOString()).toBe(
      deadline.toISOString(),
    );
  });

  it('decodes enums by name and fills absent fields with defaults', () => {
    const publish = serviceDefinitions().caching.Publish;
    if (publish === undefined) throw new Error('Publish missing');
    const decoded = publish.requestDeserialize(
      publish.requestSerialize({
        sequence: 7,
        items: [{ event: { account: 'prod', type: 'DELETED', name: 'web' } }],
      }),
    );
    expect(decoded.sequence).toBe('7');
    expect(decoded.items[0]?.event).toMatchObject({
      type: 'DELETED',
      namespace: '',
      snapshotId: '',
      object: Buffer.alloc(0),
    });
  });

  it('loads once per process', () => {
    expect(loadContract()).toBe(loadContract());
  });
});
