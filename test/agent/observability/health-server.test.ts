import { afterEach, describe, expect, it } from 'vitest';
import { AccountRegistry } from '../../../src/agent/accounts/index.ts';
import { type AgentConfig, formatIssue, loadConfig } from '../../../src/agent/config/index.ts';
import {
  HealthChecks,
  type SideServer,
  SideServerError,
  startHealthServer,
} from '../../../src/agent/observability/index.ts';
import { OperationJournal } from '../../../src/agent/operations/index.ts';
import { WatchRegistry } from '../../../src/agent/watch/index.ts';
import { freePort } from '../../cluster/free-port.ts';
import { writeConfig } from '../config/config-fixture.ts';

async function configWith(yaml: string): Promise<AgentConfig> {
  const loaded = await loadConfig(writeConfig(yaml), { fetchSecrets: true });
  if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
  return loaded.config;
}

const servers: SideServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(accountNames: string[] = []) {
  const port = await freePort();
  const accounts = accountNames
    .map((name) => `    - name: ${name}\n      namespaces: [ns-${name}]\n`)
    .join('');
  const config = await configWith(
    `server:\n  host: 127.0.0.1\n  port: ${port}\norchestrator:\n  accounts:\n${accounts || '    []\n'}`,
  );
  const checks = new HealthChecks();
  const registry = new AccountRegistry(() => new Date('2026-01-01T00:00:00Z'));
  for (const account of config.orchestrator.accounts) registry.add(account, 'static-agent-config');
  const operations = new OperationJournal({ capacity: 10, now: Date.now });
  const watches = new WatchRegistry(() => new Date());
  const server = await startHealthServer(
    config.server,
    checks,
    {
      accounts: () => registry.statuses(),
      watches: () => watches.list(),
      operations: () => ({ inFlight: operations.inFlight(), recent: operations.recent() }),
    },
    (error) => {
      throw error;
    },
  );
  servers.push(server);
  const get = async (path: string) => {
    const res = await fetch(`${server.url}${path}`);
    const body: unknown = await res.json();
    return { status: res.status, body };
  };
  return { server, checks, registry, operations, watches, get, port, config };
}

describe('health server', () => {
  it('answers liveness with 200 and readiness with 503 naming the failing check, then 200', async () => {
    const { checks, get } = await start();
    let connected = false;
    checks.register({
      name: 'control-plane',
      kind: 'readiness',
      check: () => ({ ok: connected, message: connected ? 'connected' : 'not connected' }),
    });
    expect(await get('/health')).toEqual({ status: 200, body: { status: 'UP', checks: [] } });
    expect(await get('/ready')).toEqual({
      status: 503,
      body: { status: 'DOWN', checks: [{ name: 'control-plane', ok: false, message: 'not connected' }] },
    });
    connected = true;
    expect((await get('/readyz')).status).toBe(200);
  });

  it('fails readiness too when a liveness check fails', async () => {
    const { checks, get } = await start();
    checks.register({
      name: 'event-loop',
      kind: 'liveness',
      check: () => ({ ok: false, message: 'stalled' }),
    });
    expect((await get('/livez')).status).toBe(503);
    expect((await get('/ready')).status).toBe(503);
  });

  it('lists accounts with filters and paging', async () => {
    const { get, registry } = await start(['alpha', 'beta', 'gamma']);
    registry.setState('beta', 'FAILED', 'cannot reach https://10.0.0.1:6443: ECONNREFUSED');
    expect(await get('/accounts?limit=2')).toMatchObject({
      status: 200,
      body: {
        total: 3,
        offset: 0,
        limit: 2,
        next: '?limit=2&offset=2',
        items: [{ name: 'alpha' }, { name: 'beta' }],
      },
    });
    const next = await get('/accounts?limit=2&offset=2');
    expect(next.body).toMatchObject({ total: 3, items: [{ name: 'gamma' }] });
    expect(next.body).not.toHaveProperty('next');
    const failed = await get('/accounts?state=failed');
    expect(failed.body).toHaveProperty('items', [
      expect.objectContaining({
        name: 'beta',
        state: 'FAILED',
        lastAssignmentMsg: 'cannot reach https://10.0.0.1:6443: ECONNREFUSED',
        source: 'static-agent-config',
        cluster: 'default kubeconfig',
        namespaces: ['ns-beta'],
      }),
    ]);
  });

  it('refuses bad list queries with 400 and a reason', async () => {
    const { get } = await start();
    expect(await get('/accounts?limit=0')).toEqual({
      status: 400,
      body: { error: "limit must be an integer from 1 to 500, found '0'" },
    });
    expect((await get('/watches?colour=red')).status).toBe(400);
  });

  it('shows watches and operations, in flight and recent with outcome and duration', async () => {
    const { get, operations, watches } = await start();
    watches.update('alpha', 'Pod', 'web', { state: 'watching', resourceVersion: '42' });
    // Events and bookmarks after the watch started move the view: it shows where the watch is now.
    watches.event('alpha', 'Pod', 'web', '43');
    watches.event('alpha', 'Pod', 'web', '44');
    watches.bookmark('alpha', 'Pod', 'web', '45');
    operations.begin('op-1', 'deploy', 'alpha');
    operations.begin('op-2', 'scale', 'alpha');
    operations.end('op-2', 'failed', 'deployments.apps "x" not found');
    expect((await get('/watches')).body).toHaveProperty('items', [
      expect.objectContaining({
        account: 'alpha',
        kind: 'Pod',
        namespace: 'web',
        state: 'watching',
        resourceVersion: '45',
        events: 2,
        lastEventAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      }),
    ]);
    const ops = (await get('/operations')).body;
    expect(ops).toHaveProperty('inFlight', [expect.objectContaining({ id: 'op-1', type: 'deploy' })]);
    expect(ops).toHaveProperty('recent', [
      expect.objectContaining({
        id: 'op-2',
        outcome: 'failed',
        message: 'deployments.apps "x" not found',
        durationMs: expect.any(Number),
      }),
    ]);
  });

  it('names the setting when its port is already in use', async () => {
    const { config } = await start();
    const second = startHealthServer(
      config.server,
      new HealthChecks(),
      { accounts: () => [], watches: () => [], operations: () => ({ inFlight: [], recent: [] }) },
      () => undefined,
    );
    await expect(second).rejects.toThrow(SideServerError);
    await expect(second).rejects.toThrow(
      `server.port: port ${config.server.port} on 127.0.0.1 is already in use; set server.port to a free port or stop the process using it`,
    );
  });

  it('answers unknown paths with 404 listing the known ones', async () => {
    const { get } = await start();
    const res = await get('/nope');
    expect(res.status).toBe(404);
    expect(res.body).toHaveProperty('paths', expect.arrayContaining(['/ready']));
  });
});
