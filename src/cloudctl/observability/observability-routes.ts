// Probes and metrics on the HTTP port, without a token, following Kubernetes' conventions:
// /health is liveness (the process answers), /ready is readiness (the database answers and the
// process is not stopping), /metrics is Prometheus' text format.
import type { Registry } from 'prom-client';
import { z } from 'zod';
import { defineRoute, Reply, type Route } from '../http/index.ts';

export interface ReadinessSources {
  ping(): Promise<void>;
  stopping(): boolean;
}

const statusSchema = z.object({
  status: z.enum(['UP', 'DOWN']),
  checks: z.record(z.string(), z.string()).optional(),
});

export function observabilityRoutes(registry: Registry, readiness: ReadinessSources): Route[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/health',
      summary: 'Liveness: cloudctl answers',
      tag: 'health',
      access: 'public',
      schema: { response: { 200: statusSchema } },
      handler: async () => ({ status: 'UP' }),
    }),
    defineRoute({
      method: 'GET',
      url: '/ready',
      summary: 'Readiness: the database answers and cloudctl is not stopping',
      tag: 'health',
      access: 'public',
      schema: { response: { 200: statusSchema, 503: statusSchema } },
      handler: async () => {
        const checks: Record<string, string> = {};
        checks.database = await readiness.ping().then(
          () => 'ok',
          (error: unknown) => `failing: ${error instanceof Error ? error.message : String(error)}`,
        );
        checks.lifecycle = readiness.stopping() ? 'stopping' : 'ok';
        const ready = Object.values(checks).every((v) => v === 'ok');
        return ready ? { status: 'UP', checks } : new Reply(503, { status: 'DOWN', checks });
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/metrics',
      summary: 'Prometheus metrics (text exposition format)',
      tag: 'health',
      access: 'public',
      produces: ['text/plain'],
      schema: { response: { 200: z.string() } },
      handler: async () => new Reply(200, await registry.metrics(), registry.contentType),
    }),
  ];
}
