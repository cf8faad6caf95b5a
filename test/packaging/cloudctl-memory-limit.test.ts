// The memory limit cloudctl's Helm chart gives a replica holds that replica's start on its embedded
// database, the worst start included: a fresh database and no template yet (initdb, then the template
// written). V8 optimizes a function of PGlite's WebAssembly in the first seconds of queries, a
// transient peak of several hundred MiB over what the process keeps (docs/decisions.md, "cloudctl's
// chart leaves room for its embedded database's start"); under a limit below it the kernel kills the
// pod at its first start, before it ever answers. The peak is the process's own high-water mark.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseQuantity } from '../../src/lib/quantity.ts';
import { freePort } from '../cluster/free-port.ts';
import { procStatus, statusBytes } from '../support/proc-status.ts';
import { startCloudctl } from '../support/processes.ts';

const VALUES = join(import.meta.dirname, '../../helm/cloudctl/values.yaml');

/** The chart's default memory limit in bytes. */
function chartMemoryLimit(): number {
  const { memory } = z
    .object({ resources: z.object({ limits: z.object({ memory: z.string() }) }) })
    .parse(load(readFileSync(VALUES, 'utf8'))).resources.limits;
  const quantity = parseQuantity(memory);
  if (quantity === undefined) throw new Error(`resources.limits.memory: not a quantity: ${memory}`);
  return Number(quantity.numerator / quantity.denominator);
}

describe("cloudctl's chart memory limit", () => {
  it('holds the first start of a replica on a fresh embedded database, with room to spare', async () => {
    const limit = chartMemoryLimit();
    const dir = mkdtempSync(join(tmpdir(), 'cloudctl-memory-'));
    const [grpcPort, httpPort] = [await freePort(), await freePort()];
    const yaml = [
      `grpc:\n  host: 127.0.0.1\n  port: ${grpcPort}`,
      `http:\n  host: 127.0.0.1\n  port: ${httpPort}`,
      `database:\n  dataDir: ${join(dir, 'data')}`,
      '',
    ].join('\n');
    // A temp dir of its own: no template from an earlier start, as in a new pod.
    const cloudctl = await startCloudctl(dir, 'cloudctl.yaml', yaml, httpPort, 120_000, {
      TMPDIR: mkdtempSync(join(dir, 'tmp-')),
    });
    try {
      // The optimizing compiler's peak comes a second or so after the first queries.
      await sleep(3_000);
      const pid = cloudctl.child.pid;
      if (pid === undefined) throw new Error('cloudctl has no pid');
      const peak = statusBytes(procStatus(pid), 'VmHWM');
      // A tenth of the limit spare: the peak moves a little with the machine and the release.
      expect(peak / 1024 ** 2).toBeLessThan((limit * 0.9) / 1024 ** 2);
    } finally {
      await cloudctl.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
