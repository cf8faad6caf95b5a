// Observability: logging, metrics, health checks and the side listeners (health, metrics, pprof).

export { defaultContextSources } from './agent-context.ts';
export type { AgentMetrics, ConnectionStateName } from './agent-metrics.ts';
export { CONNECTION_STATES, createAgentMetrics, setConnectionState } from './agent-metrics.ts';
export type { CheckResult, HealthCheck, ProbeKind } from './health-checks.ts';
export { HealthChecks } from './health-checks.ts';
export type { AdminSources } from './health-server.ts';
export { startHealthServer } from './health-server.ts';
export { IdleMemoryRelease, startIdleMemoryRelease } from './idle-memory.ts';
export type { AgentLogger, AgentLogging } from './logger.ts';
export { createLogger, logConfigIssues } from './logger.ts';
export { startMetricsServer } from './metrics-server.ts';
export { startPprofServer } from './pprof/pprof-server.ts';
export type { ReadinessSources } from './readiness.ts';
export { registerReadiness } from './readiness.ts';
export type { SideServer } from './side-server.ts';
export { SideServerError } from './side-server.ts';
export type { SideServers } from './side-servers.ts';
export { startSideServers } from './side-servers.ts';
export { watchObserver } from './watch-observer.ts';
