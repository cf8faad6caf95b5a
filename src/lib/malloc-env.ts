// glibc's allocator settings both programs run with: the image's ENV gives them to each, and each
// bin's shebang and runtime settings repeat them (src/agent/agent-runtime.ts,
// src/cloudctl/cloudctl-runtime.ts). By default glibc raises its mmap threshold to the size of the
// largest buffer freed, after which such buffers come from its heap and stay there once freed; fixed
// at 128 KiB, they are mapped and returned to the system (docs/decisions.md, "The agent runs with
// glibc's mmap and trim thresholds fixed at 128 KiB").
export const MALLOC_ENV = {
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
} as const;
