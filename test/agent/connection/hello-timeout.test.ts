// timeoutSeconds bounds hello's wait for `registered`, against a control plane that takes the stream
// and never answers; 0 (session-timing.test.ts) sets no bound at all.
import { Server, ServerCredentials, type ServerDuplexStream } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceDefinitions } from '../../../src/proto/index.ts';
import { agentConfig, connectionFor, until } from './support.ts';

let server: Server;
let address: string;
const opened: number[] = [];

beforeAll(async () => {
  server = new Server();
  server.addService(serviceDefinitions().session, {
    // Reads hello and the rest, answers nothing.
    Connect: (call: ServerDuplexStream<unknown, unknown>) => {
      opened.push(performance.now());
      call.on('data', () => undefined);
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
      error === null ? resolve(bound) : reject(error),
    ),
  );
  address = `127.0.0.1:${port}`;
});
afterAll(() => server.forceShutdown());

describe('hello against a control plane that never registers the agent', () => {
  it('ends after timeoutSeconds with handshake_timeout, and the agent dials again', async () => {
    const { connection, logs } = connectionFor(
      agentConfig('B', {
        timeoutSeconds: 1,
        cloudctl: { grpc: address, backoff: { baseDelay: 100_000_000, maxDelay: 100_000_000 } },
      }),
    );
    await connection.start();
    try {
      await until(
        () => logs.some((l) => l.reason === 'handshake_timeout'),
        15_000,
        'a session ended by handshake_timeout',
      );
      expect(logs.find((l) => l.reason === 'handshake_timeout')?.detail).toBe(
        'no registered answer within 1000 ms',
      );
      await until(() => opened.length >= 2, 15_000, 'a second Connect');
      const [first = 0, second = 0] = opened;
      // At least the 1 s deadline between the two streams; the bound above is the loaded-machine room.
      expect(second - first).toBeGreaterThanOrEqual(950);
    } finally {
      await connection.stop();
    }
  });
});
