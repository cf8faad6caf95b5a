import { configDefaults, defineConfig } from 'vitest/config';

// Tests that need a real Kubernetes cluster: they share one, started by the `cluster` project's
// global setup, so a run of unit tests alone does not wait for it. Any test may still start a cluster
// of its own with `startCluster` (test/cluster/index.ts); a few unit tests use other binaries of the
// cluster build (grpcurl), and fail saying how to build them when they are missing.
const clusterTests = ['test/cluster/**/*.test.ts', 'test/**/*.cluster.test.ts'];
// The fault tests (SIGKILLed processes, cut connections) report recovery times against their targets:
// they run after the other files, by themselves, on a cluster of their own, so the times they measure
// are the system's and not the rest of the suite's load. (A cloudctl restart that converged in 4 s
// alone took 30 s in the full suite; most of that was the agent's reconnect backoff, which the crash
// tests now cap: docs/decisions.md, "The crash tests' agents redial cloudctl at most 2 s apart".)
const faultTests = ['test/crash/**/*.test.ts'];
// Files that need a process of their own (see `isolate` below): the CPU profile test reads V8's
// profiler through node:inspector, and in a worker that ran other files first its profile showed only
// "(idle)" and the worker then died of SIGSEGV.
const ownProcessTests = ['test/agent/observability/pprof-server.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Cluster processes die with the thread that spawned them (test/cluster/cluster-process.ts): in a
    // forked worker that is the worker's main thread, which lives as long as the worker.
    pool: 'forks',
    // Vitest's default is one worker less than the cores: one worker on this 2-core machine, every
    // file in turn. Most test time is waiting on real processes (API servers, agents, cloudctl), so
    // three files at once take the suite from about 13 to about 7 minutes (docs/decisions.md).
    maxWorkers: 3,
    // A worker keeps its modules from one file to the next. With a fresh module graph per file,
    // importing (cloudctl, the agent, @kubernetes/client-node) was 22% of the suite's time on two
    // busy cores; the unit files took 444 s isolated and 248 s not (docs/decisions.md). Files still
    // start and stop their own systems in their hooks; the few that need a process of their own are
    // listed above.
    isolate: false,
    // Runs before every file, so what a file leaves to be cleaned is cleaned after that file.
    setupFiles: ['test/support/remove-temp-dirs.ts'],
    projects: [
      {
        extends: true,
        // Vite merges array options, so `include` lives in each project rather than at the root.
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...clusterTests, ...ownProcessTests],
        },
      },
      {
        extends: true,
        test: { name: 'own-process', include: ownProcessTests, isolate: true },
      },
      {
        extends: true,
        test: {
          name: 'cluster',
          include: clusterTests,
          exclude: [...configDefaults.exclude, ...faultTests],
          globalSetup: ['test/cluster/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'faults',
          include: faultTests,
          globalSetup: ['test/cluster/global-setup.ts'],
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
