// What a V8 sampling heap profile (HeapProfiler.getSamplingProfile) says the live heap holds: each
// sample is an allocation still alive at the time of the profile, with the stack that made it. The
// figures are by function (self) and by the nearest frame in our own sources, which is where a
// structure kept per object would show as a size that grows with the objects. The sampled bytes
// estimate the live heap allocated since sampling began.
import { z } from 'zod';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}
const nodeSchema: z.ZodType<ProfileNode> = z.lazy(() =>
  z.object({
    callFrame: z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number() }),
    selfSize: z.number(),
    children: z.array(nodeSchema),
  }),
);
const profileSchema = z.object({ head: nodeSchema });

export interface HeapSamplingSummary {
  sampledBytes: number;
  /** The largest allocating functions, by their own (self) bytes. */
  bySite: Array<{ site: string; bytes: number }>;
  /** The same bytes charged to the innermost frame in `ours` (e.g. `/src/`): who keeps what. */
  byOwnFrame: Array<{ site: string; bytes: number }>;
}

const siteOf = (frame: ProfileNode['callFrame']) =>
  `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*?\/(node_modules|src)\//, '$1/')}:${frame.lineNumber + 1}`;

const top = (sizes: Map<string, number>, n: number) =>
  [...sizes]
    .map(([site, bytes]) => ({ site, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, n);

export function summarizeHeapSampling(profile: unknown, ours = '/src/', n = 15): HeapSamplingSummary {
  const { head } = profileSchema.parse(profile);
  const bySite = new Map<string, number>();
  const byOwnFrame = new Map<string, number>();
  let sampled = 0;
  const walk = (node: ProfileNode, own: string) => {
    const site = siteOf(node.callFrame);
    const url = node.callFrame.url;
    const nearest = url.includes(ours) && !url.includes('/node_modules/') ? site : own;
    if (node.selfSize > 0) {
      sampled += node.selfSize;
      bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
      byOwnFrame.set(nearest, (byOwnFrame.get(nearest) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, nearest);
  };
  walk(head, '(outside our sources)');
  return { sampledBytes: sampled, bySite: top(bySite, n), byOwnFrame: top(byOwnFrame, n) };
}
