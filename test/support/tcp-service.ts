// A TCP front for several servers, as a Kubernetes Service in front of cloudctl's replicas: each new
// connection goes to the first server, in the order given, that accepts it. A server that dies takes
// its connections with it; the clients' new connections land on the next one that is up.
import { connect, createServer, type Socket } from 'node:net';

export interface TcpService {
  /** `host:port` to dial. */
  readonly address: string;
  close(): Promise<void>;
}

function dial(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

export async function startTcpService(ports: readonly number[]): Promise<TcpService> {
  const open = new Set<Socket>();
  const server = createServer((client) => {
    client.pause();
    open.add(client);
    client.on('error', () => client.destroy());
    client.on('close', () => open.delete(client));
    void (async () => {
      for (const port of ports) {
        const upstream = await dial(port).catch(() => undefined);
        if (upstream === undefined) continue;
        open.add(upstream);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          open.delete(upstream);
        };
        upstream.on('error', drop).on('close', drop);
        client.on('close', drop);
        client.pipe(upstream).pipe(client);
        client.resume();
        return;
      }
      client.resetAndDestroy();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const bound = server.address();
  const port = typeof bound === 'object' && bound !== null ? bound.port : 0;
  return {
    address: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
