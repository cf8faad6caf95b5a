# syntax=docker/dockerfile:1.7
# orch-agent image: Node 24 runs the TypeScript sources directly (type stripping), so the image holds
# the sources and production dependencies only. tini is PID 1: it forwards SIGTERM to Node and reaps
# the token command's children. Works with a read-only root filesystem; mount a writable /tmp.

ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="orch-agent" \
      org.opencontainers.image.description="Kubernetes deployment agent that streams cluster state to cloudctl and carries out its operations" \
      org.opencontainers.image.source="https://github.com/orch-agent/orch-agent" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini=0.19.* \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# Fixed glibc mmap/trim thresholds: freed list-page buffers go back to the system (see
# src/agent/agent-runtime.ts, which the benchmarks use and a test compares with this file).
ENV NODE_ENV=production \
    MALLOC_MMAP_THRESHOLD_=131072 \
    MALLOC_TRIM_THRESHOLD_=131072
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root package.json ./
COPY --chown=root:root bin ./bin
COPY --chown=root:root src ./src
COPY --chown=root:root proto ./proto
# Node's compile cache, filled now: the compiled code of every module the agent can load, and the
# stripped JavaScript of our .ts sources. The agent then starts without compiling them and without
# loading Node's TypeScript stripper (~0.3 s and ~17 MiB less; docs/benchmarks.md, "Agent
# footprint"). The cache is keyed by Node version, V8 flags and user id, so it is filled with the
# ENTRYPOINT's flags, as the user the agent runs as (the chart's runAsUser), and then made read-only:
# Node reads it and writes nothing at run time. Nothing of it lands in /tmp, which the chart mounts
# as a memory-backed emptyDir of 16 MiB.
ENV NODE_COMPILE_CACHE=/app/node-compile-cache
RUN mkdir node-compile-cache && chown 1000:1000 node-compile-cache
# The node image's unprivileged user; the files above stay root-owned and read-only to it.
USER 1000:1000
RUN node --max-semi-space-size=16 --expose-gc src/agent/compile-cache-warmup.ts \
 && chmod -R a-w node-compile-cache
EXPOSE 8082 8008
# --max-semi-space-size caps V8's young generation at 16 MiB per semi-space: under a large initial
# sync V8 otherwise grows it to 64 MiB each and keeps the memory (see docs/benchmarks.md).
# --expose-gc lets the agent shrink it again once synced (src/agent/observability/idle-memory.ts).
ENTRYPOINT ["/usr/bin/tini", "--", "node", "--max-semi-space-size=16", "--expose-gc", "/app/bin/orch-agent.js"]
CMD ["run", "--config", "/etc/orch-agent/config.yaml"]
