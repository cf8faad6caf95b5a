import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startPprofServer } from '../../../src/agent/observability/index.ts';
import { freePort } from '../../cluster/free-port.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { goBinary, testGoCommand } from '../../tools/go-binary.ts';

const run = promisify(execFile);

/** `pprof -top` of the profile, by pprof built ahead of the tests (go-binary.ts). */
async function goPprofTop(body: ArrayBuffer): Promise<string> {
  const file = join(tempDir(), 'profile.pb.gz');
  writeFileSync(file, Buffer.from(body));
  const { moduleDir, name, tags, pkg } = testGoCommand('pprof');
  const pprof = await goBinary(moduleDir, name, tags, pkg);
  const { stdout } = await run(pprof, ['-top', '-symbolize=none', file], {
    maxBuffer: 16 << 20,
  });
  return stdout;
}

/** Busy work in slices, so the event loop still serves the profile request meanwhile. */
async function burnCpuFor(ms: number) {
  const end = Date.now() + ms;
  let x = 0;
  while (Date.now() < end) {
    x += burnCpuSlice();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return x;
}
function burnCpuSlice() {
  let acc = 0;
  for (let i = 0; i < 2_000_000; i++) acc = (acc + Math.sqrt(i)) % 1e9;
  return acc;
}

const retained: number[][] = [];
function retainMemoryForHeapTest() {
  for (let i = 0; i < 400; i++) retained.push(new Array(32_768).fill(i));
}

describe('pprof server', async () => {
  const server = await startPprofServer({ enabled: true, port: await freePort() }, () => undefined, Date.now);
  afterAll(() => server.close());

  it('binds to localhost only and serves an index', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${server.url}/debug/pprof/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('profile?seconds=');
  });

  it('serves a CPU profile that pprof reads, showing the hot function', {
    timeout: 60_000,
  }, async () => {
    const response = fetch(`${server.url}/debug/pprof/profile?seconds=2`);
    await burnCpuFor(2200);
    const res = await response;
    expect(res.status).toBe(200);
    const top = await goPprofTop(await res.arrayBuffer());
    expect(top).toContain('Type: cpu');
    expect(top).toContain(`Time: ${new Date().toISOString().slice(0, 10)}`);
    // V8 may inline the slice into its caller; either way the busy loop must dominate the profile.
    const hottest = top.split('\n').find((line) => /^\s+[\d.]+m?s\s/.test(line));
    expect(hottest).toMatch(/burnCpu(For|Slice)$/);
    const flatPercent = Number(hottest?.trim().split(/\s+/)[1]?.replace('%', ''));
    expect(flatPercent).toBeGreaterThan(50);
  });

  it('serves a heap profile that pprof reads, showing where live memory was allocated', {
    timeout: 60_000,
  }, async () => {
    retainMemoryForHeapTest();
    const res = await fetch(`${server.url}/debug/pprof/heap`);
    expect(res.status).toBe(200);
    const top = await goPprofTop(await res.arrayBuffer());
    expect(top).toContain('Type: inuse_space');
    expect(top).toMatch(/retainMemoryForHeapTest/);
  });

  it('downloads a V8 heap snapshot', { timeout: 60_000 }, async () => {
    const res = await fetch(`${server.url}/debug/pprof/heapsnapshot`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('orch-agent.heapsnapshot');
    const snapshot = JSON.parse(await res.text());
    expect(snapshot.snapshot.meta.node_fields).toContain('self_size');
    expect(snapshot.snapshot.node_count).toBeGreaterThan(1000);
  });

  it('refuses an out-of-range duration with 400', async () => {
    const res = await fetch(`${server.url}/debug/pprof/profile?seconds=0`);
    expect(res.status).toBe(400);
  });
});
