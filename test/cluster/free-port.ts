// Free TCP ports on loopback for the processes tests, benches and the demo start. A port is found
// free by binding it, released, and bound again by the process seconds later (an agent after loading
// its modules and config, cloudctl after its database, an API server after etcd). Two things could
// take it in between, and the process would then exit at start (EADDRINUSE):
// - the kernel, which gives ports of its ephemeral range (32768-60999) to every connect and every
//   bind of port 0 on the machine; so no port comes from that range;
// - another file of the parallel run given the same port; so each vitest worker takes its ports in
//   turn from a slice of its own (by VITEST_POOL_ID), starting at a random place in it, and goes
//   round the slice before it gives a port again.
// A process killed and served again on its port (cloudctl, PostgreSQL) thereby keeps it while down.
// Callers that start cluster components still retry a start whose log says the address is in use
// (`retryOnPortCollision`): a process outside the run may hold a port of the range.
import { createServer } from 'node:net';
import { ProcessExitedError } from './cluster-process.ts';

/** Below Linux's ephemeral range (32768-60999): no port the kernel picks by itself lands here. */
const RANGE = { from: 20_000, to: 32_767 };
/** Slices of the range: the runner's process (global setups, benches, the demo) and its workers. */
const SLICES = 12;
const SLICE_SIZE = Math.floor((RANGE.to - RANGE.from + 1) / SLICES);

function slice(): { from: number; size: number } {
  const poolId = Number(process.env.VITEST_POOL_ID ?? 0);
  const index = Number.isInteger(poolId) && poolId > 0 ? poolId % SLICES : 0;
  return { from: RANGE.from + index * SLICE_SIZE, size: SLICE_SIZE };
}

/** Where this process takes its next port, relative to its slice's start. */
let next = Math.floor(Math.random() * SLICE_SIZE);

function bindable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  const { from, size } = slice();
  for (let tried = 0; tried < size; tried++) {
    const port = from + (next % size);
    next = (next + 1) % size;
    if (await bindable(host, port)) return port;
  }
  throw new Error(`no free port on ${host} between ${from} and ${from + size - 1}`);
}

/** True when a process log shows it failed to bind its port. */
export function isAddressInUse(log: string): boolean {
  return /address already in use/i.test(log);
}

/**
 * Runs `start` (which picks its ports with `freePort`) again when it failed because a process outside
 * the run took one of those ports in the meantime.
 */
export async function retryOnPortCollision<T>(start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= attempts || !(error instanceof ProcessExitedError) || !isAddressInUse(error.log))
        throw error;
    }
  }
}
