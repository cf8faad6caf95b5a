// The Node flags the agent runs with wherever we launch it: the image's ENTRYPOINT, the bin's
// shebang, and the benchmarks, which measure the agent as it ships (tests check they agree).
// --max-semi-space-size=16: under a large initial sync V8 grows its young generation to 64 MiB per
// semi-space and keeps it; capped, the agent's memory stays flat as clusters grow, for a few percent
// more scavenging (docs/benchmarks.md).
export const AGENT_NODE_FLAGS = ['--max-semi-space-size=16'] as const;
