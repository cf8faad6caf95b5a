// What a V8 heap snapshot (the agent's /debug/pprof/heapsnapshot) holds, by node type (strings,
// compiled code, arrays, objects, closures...), and how much of the strings are long ones: in an idle
// agent those are mostly the source text of loaded modules, which V8 keeps to compile functions lazily.
import { z } from 'zod';

const snapshotSchema = z.object({
  snapshot: z.object({
    meta: z.object({
      node_fields: z.array(z.string()),
      node_types: z.tuple([z.array(z.string())]).rest(z.unknown()),
    }),
  }),
  nodes: z.array(z.number()),
  strings: z.array(z.string()),
});

export interface HeapSummary {
  totalBytes: number;
  byType: Array<{ type: string; bytes: number }>;
  /** Strings of `longBytes` or more: how many, their bytes, and the first characters of the largest. */
  long: { count: number; bytes: number; largest: Array<{ bytes: number; start: string }> };
}

export function summarizeHeapSnapshot(text: string, longBytes = 20 * 1024): HeapSummary {
  const { snapshot, nodes, strings } = snapshotSchema.parse(JSON.parse(text));
  const fields = snapshot.meta.node_fields;
  const types = snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  if (typeAt === undefined || nameAt === undefined || sizeAt === undefined || sizeAt < 0)
    throw new Error('heap snapshot: unexpected node fields');
  const byType = new Map<string, number>();
  const long: Array<{ bytes: number; start: string }> = [];
  let total = 0;
  for (let i = 0; i < nodes.length; i += fields.length) {
    const type = types[nodes[i + typeAt] ?? 0] ?? '?';
    const bytes = nodes[i + sizeAt] ?? 0;
    total += bytes;
    byType.set(type, (byType.get(type) ?? 0) + bytes);
    if (type === 'string' && bytes >= longBytes)
      long.push({ bytes, start: (strings[nodes[i + nameAt] ?? 0] ?? '').slice(0, 60).replace(/\s+/g, ' ') });
  }
  long.sort((a, b) => b.bytes - a.bytes);
  return {
    totalBytes: total,
    byType: [...byType].map(([type, bytes]) => ({ type, bytes })).sort((a, b) => b.bytes - a.bytes),
    long: { count: long.length, bytes: long.reduce((a, b) => a + b.bytes, 0), largest: long.slice(0, 8) },
  };
}
