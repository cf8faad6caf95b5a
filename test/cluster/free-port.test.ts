// The ports tests give their processes: below the kernel's ephemeral range, a slice per vitest
// worker, and never one that something holds.
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from './free-port.ts';

const EPHEMERAL_FROM = 32_768;
const poolId = process.env.VITEST_POOL_ID;
const held: Server[] = [];

function hold(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => resolve());
    held.push(server);
  });
}

/** The ports freePort gives while VITEST_POOL_ID is `id`. */
async function portsOfWorker(id: string, count: number): Promise<number[]> {
  process.env.VITEST_POOL_ID = id;
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) ports.push(await freePort());
    return ports;
  } finally {
    if (poolId === undefined) delete process.env.VITEST_POOL_ID;
    else process.env.VITEST_POOL_ID = poolId;
  }
}

afterEach(async () => {
  await Promise.all(held.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('freePort', () => {
  it('gives ports below the ephemeral range, none twice in a row of 200', async () => {
    const ports = await portsOfWorker(poolId ?? '1', 200);
    expect(ports.filter((port) => port >= EPHEMERAL_FROM || port < 20_000)).toEqual([]);
    expect(new Set(ports).size).toBe(200);
  });

  // Ids above the run's three workers (vitest.config.ts, maxWorkers): no worker takes these slices.
  // 1 100 ports go round a worker's whole slice (12 768 ports in 12 slices), so the two sets are
  // every port each worker can give.
  it('gives two workers ports from slices that do not meet', async () => {
    const first = new Set(await portsOfWorker('7', 1_100));
    const second = await portsOfWorker('8', 1_100);
    expect(second.filter((port) => first.has(port))).toEqual([]);
  });

  it('skips a port something holds', async () => {
    const port = (await portsOfWorker('9', 1))[0] as number;
    // The next port in turn is port + 1, unless the slice wraps there; hold the next two.
    await hold(port + 1);
    await hold(port + 2);
    const next = (await portsOfWorker('9', 1))[0] as number;
    expect([port + 1, port + 2]).not.toContain(next);
  });
});
