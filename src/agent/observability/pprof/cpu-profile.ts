// Converts a V8 CPU profile (inspector `Profiler.stop`) into pprof: sample types `samples/count` and
// `cpu/nanoseconds`, one pprof sample per V8 node that was on-CPU, its stack walked to the root.
import type { Profiler } from 'node:inspector';
import { PprofBuilder } from './pprof-builder.ts';

/** `startedAtMs` is the wall-clock start: V8's own start time is a monotonic clock, not the epoch. */
export function cpuProfileToPprof(
  profile: Profiler.Profile,
  samplingIntervalMicros: number,
  startedAtMs: number,
): Buffer {
  const builder = new PprofBuilder([
    ['samples', 'count'],
    ['cpu', 'nanoseconds'],
  ]);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  // Time per node from the sample stream: timeDeltas[i] is the time before samples[i].
  const cpuMicros = new Map<number, number>();
  const counts = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  samples.forEach((nodeId, i) => {
    counts.set(nodeId, (counts.get(nodeId) ?? 0) + 1);
    cpuMicros.set(
      nodeId,
      (cpuMicros.get(nodeId) ?? 0) + Math.max(0, deltas[i + 1] ?? samplingIntervalMicros),
    );
  });

  for (const [nodeId, count] of counts) {
    const stack: number[] = [];
    for (let id: number | undefined = nodeId; id !== undefined; id = parent.get(id)) {
      const node = byId.get(id);
      if (node === undefined || node.callFrame.functionName === '(root)') continue;
      stack.push(builder.location(node.callFrame));
    }
    builder.sample(stack, [count, Math.round((cpuMicros.get(nodeId) ?? 0) * 1000)]);
  }
  return builder.encode({
    periodType: ['cpu', 'nanoseconds'],
    period: samplingIntervalMicros * 1000,
    timeNanos: startedAtMs * 1_000_000,
    durationNanos: (profile.endTime - profile.startTime) * 1000,
  });
}
