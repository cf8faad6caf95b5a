// Free TCP ports on loopback, found by letting the kernel pick (bind port 0). The port is released
// before the cluster process binds it, so another process can take it in between: callers retry a
// component whose log says the address is in use (see `isAddressInUse`).
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
