// A TCP proxy in front of a real server that can cut connections: the faults a flaky network or a
// restarting load balancer gives (connections reset mid-request, new ones refused, a partition that
// lasts until healed, packets of one direction silently lost). It forwards bytes untouched, so TLS
// runs end to end between client and server.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpFaultProxy {
  /** `host:port` to dial instead of the target. */
  readonly address: string;
  /** Connections accepted so far, cut ones included. */
  readonly connections: number;
  /** Cuts every open connection and resets the next `count` new ones as soon as they arrive. */
  cut(count: number): void;
  /** Cuts every open connection and resets every new one until `heal`. */
  partition(): void;
  /** Ends a partition: new connections are forwarded again. */
  heal(): void;
  /**
   * From now on, bytes the open connections send one way are read and thrown away: `upstream`, what
   * clients send to the server; `downstream`, the server's answers. The connections stay open, so
   * neither end learns of the loss until it times out or the connection is cut. New connections are
   * not affected.
   */
  blackhole(direction: 'upstream' | 'downstream'): void;
  close(): Promise<void>;
}

interface Link {
  client: Socket;
  upstream: Socket;
}

export async function startTcpFaultProxy(target: { host: string; port: number }): Promise<TcpFaultProxy> {
  const open = new Set<Link>();
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
    const link = { client, upstream };
    open.add(link);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(link);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const bound = server.address();
  const port = typeof bound === 'object' && bound !== null ? bound.port : 0;
  const cutOpen = () => {
    for (const { client, upstream } of open) {
      client.resetAndDestroy();
      upstream.resetAndDestroy();
    }
    open.clear();
  };
  const discard = (from: Socket, to: Socket) => {
    from.unpipe(to);
    from.on('data', () => {});
  };
  return {
    address: `127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    cut(count) {
      toReset = count;
      cutOpen();
    },
    partition() {
      toReset = Number.POSITIVE_INFINITY;
      cutOpen();
    },
    heal() {
      toReset = 0;
    },
    blackhole(direction) {
      for (const { client, upstream } of open) {
        if (direction === 'upstream') discard(client, upstream);
        else discard(upstream, client);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const { client, upstream } of open) {
          client.destroy();
          upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
