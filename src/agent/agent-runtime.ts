// How the agent's Node process is started wherever we launch it: the image (ENTRYPOINT and ENV), the
// bin's shebang, and the benchmarks, which measure the agent as it ships (tests check they agree).
// These settings keep the agent's memory low (docs/benchmarks.md):
// - --max-semi-space-size=16: under a large initial sync V8 grows its young generation to 64 MiB per
//   semi-space and keeps it; capped, for a few percent more scavenging.
// - --expose-gc: once synced, the agent asks V8 to shrink its young generation and release unused
//   pages (src/agent/observability/idle-memory.ts), which V8 does not do by itself while idle.
// - glibc's fixed mmap and trim thresholds: by default glibc raises its mmap threshold to the size of
//   the largest buffer freed (list pages are ~1 MiB), after which such buffers come from its heap and
//   stay there once freed; fixed at 128 KiB, they are mapped and returned to the system.
import { MALLOC_ENV } from '../lib/malloc-env.ts';

export const AGENT_NODE_FLAGS = ['--max-semi-space-size=16', '--expose-gc'] as const;

export const AGENT_ENV = MALLOC_ENV;

/**
 * Packages the agent imports only when a setting asks for them; the image's compile cache is filled
 * with them too (compile-cache-warmup.ts; test/packaging checks the list against the sources).
 */
export const LAZY_PACKAGES = [
  '@kubernetes/client-node/dist/oidc_auth.js',
  'pino-pretty',
  'pino-roll',
  'socks',
  'socks-proxy-agent',
] as const;
