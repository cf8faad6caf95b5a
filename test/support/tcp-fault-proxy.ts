// A TCP proxy in front of a real server that can cut connections: the faults a flaky network or a
// restarting load balancer gives (connections reset mid-request, new ones refused). It forwards bytes
// untouched, so TLS runs end to end between client and server.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpFaultProxy {
  /** `host:port` to dial instead of the target. */
  readonly address: string;
  /** Connections accepted so far, cut ones included. */
  readonly connections: number;
  /** Cuts every open connection and resets the next `count` new ones as soon as they arrive. */
  cut(count: number): void;
  close(): Promise<void>;
}

export async function startTcpFaultProxy(target: { host: string; port: number }): Promise<TcpFaultProxy> {
  const open = new Set<Socket>();
  let toReset = 0;
  let connections = 0;
  const server: Server = createServer((client) => {
    connections++;
    if (toReset > 0) {
      toReset--;
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const bound = server.address();
  const port = typeof bound === 'object' && bound !== null ? bound.port : 0;
  return {
    address: `127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    cut(count) {
      toReset = count;
      for (const socket of open) socket.resetAndDestroy();
      open.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
