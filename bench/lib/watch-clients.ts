// Clients following GET /watch as a browser's EventSource does: one HTTP/1.1 connection each, events
// read as they arrive. Each object event is kept as its resourceVersion and the time it was read;
// with the load's record of when each version was written (update-load.ts, `recordVersions`) that
// gives the delivery delay. A regular expression finds the version, not JSON.parse, so the clients'
// own work stays small beside cloudctl's and the delay is cloudctl's, not the reader's.
import { type IncomingMessage, request } from 'node:http';
import { wallClockMs } from './update-load.ts';

const VERSION = /"resourceVersion":"(\d+)"/;

export interface WatchSample {
  /** resourceVersion of each object event read, over all clients; `readAt[i]` is when. */
  versions: string[];
  readAt: number[];
  /** Object events read, over all clients. */
  events: number;
  /** `closed` events cloudctl sent (SLOW_CLIENT, ...), with their data. */
  closed: string[];
}

export interface WatchClients {
  /** What the clients read since the previous call. */
  take(): WatchSample;
  close(): void;
}

function connect(url: URL, token: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      agent: false,
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    });
    req.once('error', reject);
    req.once('response', (response) => {
      if (response.statusCode === 200) resolve(response);
      else reject(new Error(`GET ${url.pathname}${url.search}: HTTP ${response.statusCode}`));
    });
    req.end();
  });
}

/** Opens `clients` streams of `url` and resolves once each has read its first event (`position`). */
export async function followWatch(options: {
  url: string;
  token: string;
  clients: number;
}): Promise<WatchClients> {
  let sample: WatchSample = { versions: [], readAt: [], events: 0, closed: [] };
  const url = new URL(options.url);
  const open = Array.from({ length: options.clients }, async () => {
    const response = await connect(url, options.token);
    response.setEncoding('utf8');
    let buffer = '';
    let positioned: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      positioned = resolve;
    });
    response.on('data', (chunk: string) => {
      const readAt = wallClockMs();
      buffer += chunk;
      const events = buffer.split('\n\n');
      buffer = events.pop() ?? '';
      for (const event of events) {
        if (event.includes('event: position')) positioned();
        else if (event.includes('event: closed')) sample.closed.push(event);
        else if (event.includes('event: object')) {
          sample.events++;
          const version = VERSION.exec(event)?.[1];
          if (version !== undefined) {
            sample.versions.push(version);
            sample.readAt.push(readAt);
          }
        }
      }
    });
    await started;
    return response;
  });
  const responses = await Promise.all(open);
  return {
    take() {
      const taken = sample;
      sample = { versions: [], readAt: [], events: 0, closed: [] };
      return taken;
    },
    close() {
      for (const response of responses) response.destroy();
    },
  };
}

/** Each read's delay: when it was read minus when its version was written (reads of other writes left out). */
export function deliveryDelays(sample: WatchSample, written: ReadonlyArray<[string, number]>): number[] {
  const writtenAt = new Map(written);
  const delays: number[] = [];
  sample.versions.forEach((version, i) => {
    const at = writtenAt.get(version);
    if (at !== undefined) delays.push((sample.readAt[i] as number) - at);
  });
  return delays;
}
