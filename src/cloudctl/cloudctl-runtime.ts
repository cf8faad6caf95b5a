// How cloudctl's Node process is started wherever we launch it: the chart's command, the bin's
// shebang, the process tests and the benchmarks, which measure cloudctl as it ships (tests check
// they agree). These settings keep its memory low (docs/benchmarks.md, "Many accounts in one agent"):
// - --max-semi-space-size=16: under the ingest of many agents V8 grows its young generation to 64 MiB
//   per semi-space and keeps it; capped, cloudctl peaked at 285 MiB instead of 349–370 MiB with 20
//   accounts on PostgreSQL, for a few percent more scavenging.
// - glibc's fixed mmap and trim thresholds, which the image sets for both programs (its ENV): the
//   same as the agent's, so cloudctl run from the bin or a benchmark runs as it does in the image.
export const CLOUDCTL_NODE_FLAGS = ['--max-semi-space-size=16'] as const;

export const CLOUDCTL_ENV = {
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
} as const;
