// Free TCP ports on loopback, found by letting the kernel pick (bind port 0). The port is released
// before the cluster process binds it, so another process can take it in between: callers retry a
// component whose log says the address is in use (see `isAddressInUse`). Ports a process must bind
// again after a restart come from `stablePort`, outside the range the kernel picks from.
import { createServer } from 'node:net';
import { ProcessExitedError } from './cluster-process.ts';

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error(`no port from ${String(address)}`));
      });
    });
  });
}

/** Below Linux's ephemeral range (32768-60999): no port a process gets by binding port 0 lands here. */
const STABLE_PORTS = { from: 20_000, to: 32_767 };

/**
 * A free port for a process that is killed and served again on the same port (the agent dials the
 * same address): a port the kernel hands out for port 0 could be given to another process of the
 * parallel run while the first is down, so these come from below the ephemeral range, at random,
 * checked free by binding.
 */
export async function stablePort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = STABLE_PORTS.from + Math.floor(Math.random() * (STABLE_PORTS.to - STABLE_PORTS.from));
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.unref();
      server.once('error', () => resolve(false));
      server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port between ${STABLE_PORTS.from} and ${STABLE_PORTS.to}`);
}

/** True when a process log shows it failed to bind its port. */
export function isAddressInUse(log: string): boolean {
  return /address already in use/i.test(log);
}

/**
 * Runs `start` (which picks its ports with `freePort`) again when it failed because another process
 * took one of those ports in the meantime.
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
