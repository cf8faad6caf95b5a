// A load generator in its own process, so that its work does not slow the cloudctl it measures:
// merge-patches ConfigMaps round robin at a fixed rate (open loop: a slow server does not lower the
// offered rate, up to `maxInFlight`), stamping each with the wall-clock time of the write in
// `data.bench-ts` (ms since the epoch, with a fraction). Prints one JSON line of results.
// Input: the BENCH_LOAD environment variable, JSON of `LoadSpec`.
import { spawn } from 'node:child_process';
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
  /**
   * Report each write's resourceVersion with its time (`versions`): GET /watch's object events carry
   * the version, not the object's data, so a follower's delay is found by it.
   */
  recordVersions: z.boolean().default(false),
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
  /** With `recordVersions`: [resourceVersion, write time in ms since the epoch] of each write. */
  versions: z.array(z.tuple([z.string(), z.number()])).optional(),
});
export type LoadResult = z.infer<typeof LoadResult>;

export const LATENCY_KEY = 'bench-ts';
const VERSION = /"resourceVersion":"(\d+)"/;
export const wallClockMs = () => performance.timeOrigin + performance.now();

async function run(spec: z.infer<typeof LoadSpec>): Promise<LoadResult> {
  const client = new ApiClient({ server: spec.server, ca: spec.ca, token: spec.token });
  const writeMs: number[] = [];
  const versions: Array<[string, number]> = [];
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
    if (response.status === 200 && spec.recordVersions) {
      const version = VERSION.exec(response.text)?.[1];
      if (version !== undefined) versions.push([version, t0]);
    } else failed++;
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
    ...(spec.recordVersions ? { versions } : {}),
  };
}

/** Runs the load in a child process of its own (this file) and resolves with its results. */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const child = spawn(process.execPath, [import.meta.filename], {
    env: { ...process.env, BENCH_LOAD: JSON.stringify(spec) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      if (code === 0) resolve(LoadResult.parse(JSON.parse(out)));
      else reject(new Error(`the load generator exited with ${code}`));
    });
  });
}

if (import.meta.main) {
  const spec = LoadSpec.parse(JSON.parse(process.env.BENCH_LOAD ?? 'null'));
  process.stdout.write(`${JSON.stringify(await run(spec))}\n`);
}
