// Bearer tokens on a plaintext channel: cloudctl.auth.token, and tokenCommand whose refreshed output
// is what the control plane sees from the next call on. A failing command is logged and retried.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_TOKEN, startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { agentConfig, connectionFor, type TestConnection, until } from './support.ts';

let dir: string;
let cp: TestControlPlane;
const open: TestConnection[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-auth-'));
  cp = await startTestControlPlane();
});
afterEach(async () => {
  for (const c of open.splice(0)) await c.connection.stop();
});
afterAll(async () => {
  await cp?.close();
  await rm(dir, { recursive: true, force: true });
});

function plaintext(auth: Record<string, unknown>): TestConnection {
  const c = connectionFor(
    agentConfig('C', { cloudctl: { grpc: cp.address, auth }, orchestrator: { reconnectTimeoutMs: 200 } }),
  );
  open.push(c);
  return c;
}

const refusals = () => cp.logs.filter((l) => l.msg === 'refused agent call: unknown bearer token').length;

describe('bearer token', () => {
  it('sends cloudctl.auth.token as authorization metadata on a plaintext channel', async () => {
    const c = plaintext({ token: AGENT_TOKEN });
    await c.connection.start();
    await c.waitFor('connected');
  });

  it('without a token cloudctl refuses the session and the agent keeps retrying', async () => {
    const c = plaintext({});
    await c.connection.start();
    await c.waitFor('backoff');
    await c.waitFor('backoff', 2000, c.transitions.findIndex((t) => t.state === 'backoff') + 1);
    expect(c.logs.some((l) => l.reason === 'unauthenticated' && l.level === 50)).toBe(true);
    expect(
      cp.logs.some((l) => l.msg === 'refused agent call: no bearer token and no client certificate'),
    ).toBe(true);
  });

  it('uses the token the command prints after a refresh from the next call on', async () => {
    const tokenFile = join(dir, 'token.json');
    await writeFile(tokenFile, JSON.stringify({ token: 'stale-token-0000' }));
    const c = plaintext({
      // format empty behaves as json.
      tokenCommand: { command: 'cat', args: [tokenFile], refreshIntervalSeconds: 1 },
    });
    const before = refusals();
    await c.connection.start();
    await until(() => refusals() > before, 3000, 'cloudctl refused the first token');
    expect(c.connection.state).not.toBe('connected');

    await writeFile(tokenFile, JSON.stringify({ token: AGENT_TOKEN }));
    await c.waitFor('connected', 4000);
    expect(cp.plane.registry.list().some((s) => s.agentId === 'agent-1')).toBe(true);
    const agentLog = JSON.stringify(c.logs);
    expect(agentLog).not.toContain(AGENT_TOKEN);
    expect(agentLog).not.toContain('stale-token-0000');
  });

  it('reads a raw token', async () => {
    const tokenFile = join(dir, 'token.txt');
    await writeFile(tokenFile, `${AGENT_TOKEN}\n`);
    const c = plaintext({ tokenCommand: { command: 'cat', args: [tokenFile], format: 'raw' } });
    await c.connection.start();
    await c.waitFor('connected');
  });

  it('a failing token command is a logged error and a retry, not a crash', async () => {
    const c = plaintext({ tokenCommand: { command: 'sh', args: ['-c', 'echo secret-ish >&2; exit 3'] } });
    await c.connection.start();
    await until(
      () => c.logs.filter((l) => l.msg === 'cannot prepare the session').length >= 2,
      3000,
      'two failed attempts',
    );
    const failure = c.logs.find((l) => l.msg === 'cannot prepare the session');
    expect(failure?.level).toBe(50);
    expect(JSON.stringify(failure)).toContain('CLOUDCTL_TOKEN_COMMAND');
    expect(JSON.stringify(failure)).toContain('exit code 3');
    expect(c.connection.state).not.toBe('stopped');
  });
});
