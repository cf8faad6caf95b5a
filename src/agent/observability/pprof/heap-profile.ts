// Converts a V8 sampling heap profile (inspector `HeapProfiler.getSamplingProfile`) into pprof with
// `inuse_space/bytes`: each node's selfSize is the sampled size of allocations made there and still
// alive (V8 drops samples of collected objects).
import type { HeapProfiler } from 'node:inspector';
import { PprofBuilder } from './pprof-builder.ts';

export function heapProfileToPprof(
  profile: HeapProfiler.SamplingHeapProfile,
  samplingIntervalBytes: number,
  nowMs: number,
): Buffer {
  const builder = new PprofBuilder([['inuse_space', 'bytes']]);
  const walk = (node: HeapProfiler.SamplingHeapProfileNode, stackRootFirst: number[]) => {
    const stack =
      node.callFrame.functionName === '(root)'
        ? stackRootFirst
        : [...stackRootFirst, builder.location(node.callFrame)];
    if (node.selfSize > 0) builder.sample([...stack].reverse(), [node.selfSize]);
    for (const child of node.children) walk(child, stack);
  };
  walk(profile.head, []);
  return builder.encode({
    periodType: ['space', 'bytes'],
    period: samplingIntervalBytes,
    timeNanos: nowMs * 1_000_000,
    durationNanos: 0,
  });
}
