// Reads of cloudctl's API at a steady rate while a benchmark runs its write load, timed by a client in
// its own process (http-timer.ts), so a read's latency is the server's under that load and not the
// load generator's event loop. The paths are chosen batch by batch, so a reader can follow what
// exists at the moment (an application deployed a moment ago).
import { startHttpTimer } from './http-timer.ts';

export interface ReadLoadOptions {
  base: string;
  headers: Record<string, string>;
  /** The next batch's paths; an empty batch waits a second and asks again. */
  nextPaths(): string[];
  /** Reads a second, at most: each read is followed by a pause of 1/rate. */
  ratePerSecond: number;
}

export interface ReadLoadResult {
  ms: number[];
  /** Reads answered 404 (what the path names is not stored yet, or no longer): not timed. */
  notFound: number;
  /** Batches a failed read cut short (any status but 200 and 404); their reads are not counted. */
  failedBatches: number;
  firstError: string | undefined;
}

export interface ReadLoad {
  /** Waits for the batch under way, then ends the reads. */
  stop(): Promise<ReadLoadResult>;
}

export function startReadLoad(options: ReadLoadOptions): ReadLoad {
  const timer = startHttpTimer();
  const result: ReadLoadResult = { ms: [], notFound: 0, failedBatches: 0, firstError: undefined };
  let running = true;
  const loop = (async () => {
    while (running) {
      const samples = options.nextPaths();
      if (samples.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        continue;
      }
      try {
        const ms = await timer.time({
          base: options.base,
          headers: options.headers,
          warmUp: [],
          samples,
          pauseMs: 1000 / options.ratePerSecond,
          skipNotFound: true,
        });
        result.ms.push(...ms);
        result.notFound += samples.length - ms.length;
      } catch (error) {
        result.failedBatches++;
        result.firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await timer.close();
      return result;
    },
  };
}
