// A load generator in its own process, so that its work does not slow the cloudctl it measures:
// merge-patches ConfigMaps round robin at a fixed rate (open loop: a slow server does not lower the
// offered rate, up to `maxInFlight`), stamping each with the wall-clock time of the write in
// `data.bench-ts` (ms since the epoch, with a fraction). Prints one JSON line of results.
// Input: the BENCH_LOAD environment variable, JSON of `LoadSpec`.
import { z } from 'zod';
import { ApiClient } from '../../test/cluster/api-client.ts';
import { percentile } from './summary.ts';

export const LoadSpec = z.object({
  server: z.string(),
  ca: z.string(),
  token: z.string(),
  /** `namespace/name` of each ConfigMap to update. */
  targets: z.array(z.string()).min(1),
  ratePerSecond: z.number().positive(),
  seconds: z.number().positive(),
  maxInFlight: z.number().int().positive().default(256),
});
export type LoadSpec = z.input<typeof LoadSpec>;

export const LoadResult = z.object({
  sent: z.number(),
  failed: z.number(),
  achievedPerSecond: z.number(),
  writeP50Ms: z.number(),
  writeP99Ms: z.number(),
  /** Writes not started because `maxInFlight` were outstanding: the server could not keep up. */
  skipped: z.number(),
});
export type LoadResult = z.infer<typeof LoadResult>;

export const LATENCY_KEY = 'bench-ts';
export const wallClockMs = () => performance.timeOrigin + performance.now();

async function run(spec: z.infer<typeof LoadSpec>): Promise<LoadResult> {
  const client = new ApiClient({ server: spec.server, ca: spec.ca, token: spec.token });
  const writeMs: number[] = [];
  let started = 0;
  let failed = 0;
  let skipped = 0;
  let inFlight = 0;
  const pending = new Set<Promise<void>>();
  const write = async (target: string) => {
    const [namespace, name] = target.split('/');
    const t0 = wallClockMs();
    const response = await client.request('PATCH', `/api/v1/namespaces/${namespace}/configmaps/${name}`, {
      body: { data: { [LATENCY_KEY]: t0.toFixed(3) } },
      contentType: 'application/merge-patch+json',
    });
    if (response.status === 200) writeMs.push(wallClockMs() - t0);
    else failed++;
  };
  const begin = performance.now();
  const durationMs = spec.seconds * 1000;
  let offered = 0;
  while (performance.now() - begin < durationMs) {
    const due = Math.floor(((performance.now() - begin) / 1000) * spec.ratePerSecond);
    for (; offered < due; offered++) {
      if (inFlight >= spec.maxInFlight) {
        skipped++;
        continue;
      }
      const target = spec.targets[started % spec.targets.length] as string;
      started++;
      inFlight++;
      const p: Promise<void> = write(target)
        .catch(() => {
          failed++;
        })
        .finally(() => {
          inFlight--;
          pending.delete(p);
        });
      pending.add(p);
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await Promise.all(pending);
  const elapsedS = (performance.now() - begin) / 1000;
  await client.close();
  return {
    sent: started,
    failed,
    achievedPerSecond: writeMs.length / elapsedS,
    writeP50Ms: percentile(writeMs, 50),
    writeP99Ms: percentile(writeMs, 99),
    skipped,
  };
}

if (import.meta.main) {
  const spec = LoadSpec.parse(JSON.parse(process.env.BENCH_LOAD ?? 'null'));
  process.stdout.write(`${JSON.stringify(await run(spec))}\n`);
}
