// Operation results: one produced while cloudctl is down is delivered after it comes back (nothing
// lost across a restart of cloudctl on the same database; crash tests with SIGKILL are in the
// process-level suites), and a result that cannot be delivered is retried per
// cloudctl.responseRetries, then logged and counted.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_TOKEN, startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { agentConfig, connectionFor, metricValue, type TestConnection, until } from './support.ts';

/** The operation these tests send: the connection passes it on, no handler runs it. */
const SCALE_WEB = { kind: 'Deployment', namespace: 'default', name: 'web', replicas: 2 } as const;

const open: TestConnection[] = [];
const planes: TestControlPlane[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.connection.stop();
  for (const p of planes.splice(0)) await p.close().catch(() => undefined);
});

function connectionTo(address: string, cloudctl: Record<string, unknown> = {}): TestConnection {
  const c = connectionFor(
    agentConfig('B', {
      cloudctl: {
        grpc: address,
        auth: { token: AGENT_TOKEN },
        keepAliveHeartbeatSeconds: 0,
        backoff: { baseDelay: 100_000_000, maxDelay: 300_000_000 },
        ...cloudctl,
      },
    }),
  );
  open.push(c);
  return c;
}

describe('result delivery', () => {
  it('delivers a result produced while the control plane was down, after it restarts', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-outbox-'));
    try {
      const first = await startTestControlPlane({ database: { dataDir } });
      planes.push(first);
      const c = connectionTo(first.address);
      await c.connection.start();
      await c.waitFor('connected');
      void first.plane.operations
        .execute({ account: 'acct-a', type: 'scale', payload: SCALE_WEB, timeoutMs: 60_000 })
        .catch(() => undefined);
      await until(() => c.operations.length === 1, 3000, 'the operation');
      const [operation] = c.operations;
      expect(operation).toMatchObject({ type: 'scale', account: 'acct-a', payload: SCALE_WEB });
      const id = operation?.id ?? '';

      await first.close();
      await c.waitFor('backoff');
      c.connection.reportResult({ id, ok: true, result: { replicas: 2 }, durationMs: 7 });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(c.connection.pendingResults).toBe(1);

      const second = await startTestControlPlane({
        database: { dataDir },
        grpc: { port: Number(first.address.split(':')[1]) },
      });
      planes.push(second);
      const downAt = c.transitions.findIndex((t) => t.state === 'backoff');
      await c.waitFor('connected', 10_000, downAt);
      await until(() => c.connection.pendingResults === 0, 5000, 'delivery');
      expect(c.connection.undeliveredResults).toBe(0);
      const stored = await second.plane.store.operations.get(id);
      expect(stored).toMatchObject({ state: 'succeeded', result: { replicas: 2 } });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it.each([
    { responseRetries: { maxRetries: 2, backOffMs: 100 }, attempts: 3 },
    { responseRetries: { enabled: false, maxRetries: 2, backOffMs: 100 }, attempts: 1 },
  ])(
    'gives up after $attempts attempt(s) with $responseRetries, logged and counted',
    async ({ responseRetries, attempts }) => {
      const cp = await startTestControlPlane();
      planes.push(cp);
      const c = connectionTo(cp.address, { responseRetries });
      await c.connection.start();
      await c.waitFor('connected');
      void cp.plane.operations
        .execute({ account: 'acct-a', type: 'scale', payload: SCALE_WEB, timeoutMs: 10_000 })
        .catch(() => undefined);
      await until(() => c.operations.length === 1, 3000, 'the operation');
      // Storage gone while gRPC stays up: every Report answers UNAVAILABLE.
      await cp.plane.store.close();
      c.connection.reportResult({
        id: c.operations[0]?.id ?? '',
        ok: false,
        error: { code: 'FAILED', message: 'x' },
        durationMs: 1,
      });
      await until(() => c.connection.undeliveredResults === 1, 3000, 'the result given up');
      expect(cp.logs.filter((l) => l.msg === 'cannot record operation result')).toHaveLength(attempts);
      expect(c.logs.filter((l) => l.msg === 'operation result not delivered; retrying')).toHaveLength(
        attempts - 1,
      );
      const dropped = c.logs.find((l) => l.msg.startsWith('operation result dropped'));
      expect(dropped).toMatchObject({ level: 50, undeliveredResults: 1 });
      expect(await metricValue(c.registry, 'orch_agent_results_undelivered_total')).toBe(1);
      expect(c.connection.state).toBe('connected');
    },
  );
});
