import { configDefaults, defineConfig } from 'vitest/config';

// Tests that need a real Kubernetes cluster: they share one, started by the `cluster` project's
// global setup, so a run of unit tests alone does not wait for it. Any test may still start a cluster
// of its own with `startCluster` (test/cluster/index.ts); a few unit tests use other binaries of the
// cluster build (grpcurl), and fail saying how to build them when they are missing.
const clusterTests = ['test/cluster/**/*.test.ts', 'test/**/*.cluster.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Cluster processes die with the thread that spawned them (test/cluster/cluster-process.ts): in a
    // forked worker that is the worker's main thread, which lives as long as the worker.
    pool: 'forks',
    projects: [
      {
        extends: true,
        // Vite merges array options, so `include` lives in each project rather than at the root.
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...clusterTests],
        },
      },
      {
        extends: true,
        test: { name: 'cluster', include: clusterTests, globalSetup: ['test/cluster/global-setup.ts'] },
      },
    ],
  },
});
