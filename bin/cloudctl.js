#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072 node --max-semi-space-size=16
// The sources are TypeScript run directly by Node's type stripping (Node >= 22.18/24),
// so there is no build step between a change and a run. Older Node gets a clear message.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `cloudctl needs Node.js >= 22.18 (found ${process.versions.node}); run it through npm (npx cloudctl), which uses the project's Node 24.\n`,
  );
  process.exit(2);
}
// Compiled code is cached on disk (NODE_COMPILE_CACHE, else the OS temp dir): the next start skips
// most of the ~1 s of parsing and compiling the sources and libraries. Unwritable: silently off.
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
// Before anything imports @kubernetes/client-node (the `k8s` secrets engine reads Secrets with its
// KubeConfig): its kubeconfig handling only, not the ~800 modules of generated models and API
// classes, which were a third of the modules a start loaded.
await import('../src/kube/slim-client-node.ts');
await import('../src/cloudctl/cli.ts');
