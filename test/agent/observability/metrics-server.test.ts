import { execFile } from 'node:child_process';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createAgentMetrics,
  setConnectionState,
  startMetricsServer,
} from '../../../src/agent/observability/index.ts';
import { freePort } from '../../cluster/free-port.ts';
import { goBinary, testGoCommand } from '../../tools/go-binary.ts';

function promcheck(binary: string, text: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = execFile(binary, [], (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, out: `${stdout}${stderr}` });
    });
    child.stdin?.end(text);
  });
}

describe('metrics server', async () => {
  const registry = new Registry();
  const metrics = createAgentMetrics(registry, {
    activeWatches: () => 7,
    lastEvents: () => [{ account: 'alpha', kind: 'Pod', namespace: 'web', epochMs: 1_700_000_000_500 }],
  });
  setConnectionState(metrics, 'connected');
  metrics.connects.inc();
  metrics.kubernetesRequests.inc({ verb: 'list', code: '200' });
  metrics.operations.inc({ type: 'deploy', result: 'succeeded' });
  metrics.operationDuration.observe({ type: 'deploy' }, 0.42);
  const server = await startMetricsServer(
    { enabled: true, port: await freePort() },
    registry,
    () => undefined,
    '127.0.0.1',
  );
  afterAll(() => server.close());

  it('serves the same exposition at /metrics and /prometheus_metrics', async () => {
    const a = await fetch(`${server.url}/metrics`);
    const b = await fetch(`${server.url}/prometheus_metrics`);
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toContain('text/plain');
    const [textA, textB] = [await a.text(), await b.text()];
    const names = (t: string) =>
      t
        .split('\n')
        .filter((l) => l.startsWith('# TYPE'))
        .sort();
    expect(names(textB)).toEqual(names(textA));
  });

  it('exports the agent metrics under orch_agent_ with current values, plus process and Node.js metrics', async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    for (const line of [
      'orch_agent_connection_state{state="connected"} 1',
      'orch_agent_connection_state{state="backoff"} 0',
      'orch_agent_connects_total 1',
      'orch_agent_active_watches 7',
      'orch_agent_kubernetes_requests_total{verb="list",code="200"} 1',
      'orch_agent_operations_total{type="deploy",result="succeeded"} 1',
      'orch_agent_operation_duration_seconds_bucket{le="0.5",type="deploy"} 1',
      'orch_agent_watch_last_event_timestamp_seconds{account="alpha",kind="Pod",namespace="web"} 1700000000.5',
    ]) {
      expect(text).toContain(line);
    }
    for (const family of [
      'orch_agent_disconnects_total',
      'orch_agent_events_sent_total',
      'orch_agent_event_bytes_sent_total',
      'orch_agent_list_duration_seconds',
      'orch_agent_scheduler_queue_depth',
      'orch_agent_watch_lists_total',
      'orch_agent_watch_resumes_total',
      'orch_agent_watch_restarts_total',
      'orch_agent_uplink_batches_in_flight',
      'orch_agent_uplink_ack_duration_seconds',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_active_resources',
    ]) {
      expect(text).toMatch(new RegExp(`^# TYPE ${family} `, 'm'));
    }
  });

  it('passes the Prometheus reference parser and promlint (promtool check metrics)', async () => {
    const command = testGoCommand('promcheck');
    const binary = await goBinary(command.moduleDir, command.name);
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const result = await promcheck(binary, text);
    expect(result.out).toMatch(/^families \d+$/m);
    expect(result.code, result.out).toBe(0);
    // The checker itself must reject bad input, or a pass would mean nothing.
    const bad = await promcheck(binary, '# TYPE orch_agent_things counter\norch_agent_things 1\n');
    expect(bad.code).toBe(1);
    expect(bad.out).toContain('counter metrics should have "_total" suffix');
  });
});
