// An HTTP client in its own process that times sequential GETs: a server's latency measured from
// outside, so the client's own work (fetch, parsing, the timing loop) does not share the server's
// process and event loop, and on a small machine is not counted as the server's.
//   const timer = startHttpTimer();
//   const ms = await timer.time({ base, headers, warmUp: [...paths], samples: [...paths] });
//   await timer.close();
// Run as a script, the file is that process: it answers each request message with the samples'
// latencies in milliseconds, or the first failure (any status but 200).
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';

export interface TimedRequests {
  /** Origin of the server, e.g. `http://127.0.0.1:8080`. */
  base: string;
  headers: Record<string, string>;
  /** Paths requested first, not timed. */
  warmUp: readonly string[];
  /** Paths requested one after another, each timed from sending to the body's last byte. */
  samples: readonly string[];
  /** A pause after each sample (default none): reads at a rate, beside a load, rather than a flood. */
  pauseMs?: number;
  /** A 404 leaves its sample out of the answer instead of failing the requests (default false). */
  skipNotFound?: boolean;
}

type Answer = { ms: number[] } | { error: string };

export interface HttpTimer {
  /** The samples' latencies in milliseconds, in order. */
  time(requests: TimedRequests): Promise<number[]>;
  close(): Promise<void>;
}

export function startHttpTimer(): HttpTimer {
  const child: ChildProcess = fork(new URL(import.meta.url).pathname, [], { stdio: 'inherit' });
  return {
    async time(requests) {
      const answered = once(child, 'message') as Promise<[Answer]>;
      child.send(requests);
      const [answer] = await answered;
      if ('error' in answer) throw new Error(answer.error);
      return answer.ms;
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}

/** GETs `path`; false for a 404 when `skipNotFound`, and throws for any other status but 200. */
async function get(
  base: string,
  path: string,
  headers: Record<string, string>,
  skipNotFound = false,
): Promise<boolean> {
  const response = await fetch(`${base}${path}`, { headers });
  const body = await response.text();
  if (response.status === 404 && skipNotFound) return false;
  if (response.status !== 200) throw new Error(`GET ${path}: HTTP ${response.status}: ${body.slice(0, 300)}`);
  return true;
}

async function serve(requests: TimedRequests): Promise<Answer> {
  try {
    for (const path of requests.warmUp) await get(requests.base, path, requests.headers);
    const ms: number[] = [];
    for (const path of requests.samples) {
      const started = performance.now();
      if (await get(requests.base, path, requests.headers, requests.skipNotFound))
        ms.push(performance.now() - started);
      if (requests.pauseMs !== undefined)
        await new Promise((resolve) => setTimeout(resolve, requests.pauseMs));
    }
    return { ms };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

if (import.meta.main) {
  process.on('message', (requests: TimedRequests) => {
    void serve(requests).then((answer) => process.send?.(answer));
  });
}
