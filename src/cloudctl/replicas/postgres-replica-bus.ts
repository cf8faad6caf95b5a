// The replica bus over PostgreSQL's LISTEN/NOTIFY: replicas already share the database, so nothing
// else has to be deployed or reachable between them. One connection listens for the process, from
// `open` on; a lost connection is opened again with a growing delay, and listeners are told to re-read
// what they wait for.
import pg from 'pg';
import type { Logger } from 'pino';
import type { ReplicaBus } from './replica-bus.ts';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5000;

export function postgresReplicaBus(options: {
  url: string;
  /** Says something on a channel (through the store's own connections). */
  notify(channel: string, payload: string): Promise<void>;
  logger: Logger;
}): ReplicaBus {
  const handlers = new Map<string, (payload: string) => void>();
  const reconnected: Array<() => void> = [];
  let client: pg.Client | undefined;
  let closed = false;
  let retryMs = FIRST_RETRY_MS;
  let retryTimer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: options.url });
    next.on('notification', (message) => {
      if (message.payload !== undefined) handlers.get(message.channel)?.(message.payload);
    });
    const lost = (error?: Error) => {
      if (client !== next) return;
      client = undefined;
      next.end().catch(() => {});
      if (closed) return;
      options.logger.warn({ err: error }, 'replica bus: connection lost; listening again shortly');
      schedule();
    };
    next.on('error', lost);
    next.on('end', () => lost());
    await next.connect();
    for (const channel of handlers.keys()) await next.query(`LISTEN ${quoted(channel)}`);
    client = next;
    retryMs = FIRST_RETRY_MS;
  };

  const schedule = () => {
    retryTimer = setTimeout(() => {
      connect().then(
        () => {
          options.logger.info('replica bus: listening again');
          for (const handler of reconnected) handler();
        },
        (error: unknown) => {
          options.logger.warn({ err: error }, 'replica bus: cannot reconnect yet');
          retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
          if (!closed) schedule();
        },
      );
    }, retryMs);
  };

  return {
    open: connect,
    notify: options.notify,
    async listen(channel, handler) {
      handlers.set(channel, handler);
      await client?.query(`LISTEN ${quoted(channel)}`);
    },
    onReconnected(handler) {
      reconnected.push(handler);
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      const last = client;
      client = undefined;
      await last?.end();
    },
  };
}

/** A channel name as a quoted identifier (LISTEN takes no parameters). */
function quoted(channel: string): string {
  return `"${channel.replaceAll('"', '""')}"`;
}
