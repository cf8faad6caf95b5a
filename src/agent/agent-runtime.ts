// How the agent's Node process is started wherever we launch it: the image (ENTRYPOINT and ENV), the
// bin's shebang, and the benchmarks, which measure the agent as it ships (tests check they agree).
// Both settings keep the agent's memory flat as clusters grow (docs/benchmarks.md):
// - --max-semi-space-size=16: under a large initial sync V8 grows its young generation to 64 MiB per
//   semi-space and keeps it; capped, for a few percent more scavenging.
// - glibc's fixed mmap and trim thresholds: by default glibc raises its mmap threshold to the size of
//   the largest buffer freed (list pages are ~1 MiB), after which such buffers come from its heap and
//   stay there once freed; fixed at 128 KiB, they are mapped and returned to the system.
export const AGENT_NODE_FLAGS = ['--max-semi-space-size=16'] as const;

export const AGENT_ENV = {
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
} as const;
