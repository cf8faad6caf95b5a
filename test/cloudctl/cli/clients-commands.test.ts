// `cloudctl clients ...` as a platform team runs it: the binary as a process against a real control
// plane over real sockets. A remoteNetworkAgent credential made with `clients create` connects an agent
// cloudctl's config does not know, with the printed secret; `clients rotate` stops the old secret and
// the new one connects; `clients revoke` stops it; the list never shows a secret; a non-admin is 403
// (exit 1) and the server's 400 names the missing field. Each test starts the binary several times,
// hence timeouts for that many process starts on a loaded machine.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCloudctl } from '../../support/cloudctl-run.ts';
import { helloFor, startTestControlPlane, TestAgent, type TestControlPlane, USERS } from '../harness.ts';

let cp: TestControlPlane;
let home: string;
const agents: TestAgent[] = [];

beforeAll(async () => {
  cp = await startTestControlPlane();
  home = await mkdtemp(join(tmpdir(), 'cloudctl-clients-'));
});

afterEach(() => {
  for (const agent of agents.splice(0)) agent.close();
});

afterAll(async () => {
  await cp?.close();
  await rm(home, { recursive: true, force: true });
});

const as = (token: string) => (args: string[]) =>
  runCloudctl(args, { home, env: { CLOUDCTL_URL: cp.url, CLOUDCTL_TOKEN: token } });
const admin = as(USERS.admin.token);

/** The secret line of what create or rotate printed. */
function printedSecret(stdout: string): { clientId: string; secret: string } {
  const clientId = /^client id: +(\S+)$/m.exec(stdout)?.[1];
  const secret = /^client secret: +(\S+)$/m.exec(stdout)?.[1];
  if (clientId === undefined || secret === undefined) throw new Error(`no secret printed:\n${stdout}`);
  return { clientId, secret };
}

/** 'registered' when a session opened with `token` as `agentId` is welcomed, else the status it ended with. */
async function connectAs(token: string, agentId: string): Promise<'registered' | number> {
  const agent = new TestAgent(cp.address, { token });
  agents.push(agent);
  const registered = agent.connect(helloFor(agentId, [])).then(
    () => 'registered' as const,
    () => -1,
  );
  const ended = agent.sessionEnded?.then((s) => s.code) ?? Promise.resolve(-1);
  const outcome = await Promise.race([registered, ended]);
  agent.close();
  return outcome;
}

describe('cloudctl clients', () => {
  it('creates an agent credential whose printed secret connects that agent; rotate and revoke stop it', async () => {
    const created = await admin([
      'clients',
      'create',
      '--name',
      'edge cluster',
      '--type',
      'remoteNetworkAgent',
      '--role',
      'ops',
      '--role',
      'dev',
      '--agent-id',
      'edge-cli-1',
    ]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('as its cloudctl.auth.token');
    const first = printedSecret(created.stdout);
    expect(await connectAs(first.secret, 'edge-cli-1')).toBe('registered');

    const listed = await admin(['clients', 'list']);
    expect(listed.code).toBe(0);
    const [header, ...rows] = listed.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split(/ {3,}/));
    expect(header).toEqual(['CLIENT ID', 'NAME', 'TYPE', 'ROLES', 'AGENT', 'STATUS', 'CREATED BY', 'AGE']);
    expect(rows.find((row) => row[0] === first.clientId)?.slice(1, 7)).toEqual([
      'edge cluster',
      'remoteNetworkAgent',
      'ops,dev',
      'edge-cli-1',
      'active',
      'root',
    ]);
    expect(listed.stdout).not.toContain(first.secret);

    const rotated = await admin(['clients', 'rotate', first.clientId]);
    expect(rotated.code).toBe(0);
    const second = printedSecret(rotated.stdout);
    expect(second.clientId).toBe(first.clientId);
    expect(second.secret).not.toBe(first.secret);
    expect(await connectAs(first.secret, 'edge-cli-1')).toBe(status.UNAUTHENTICATED);
    expect(await connectAs(second.secret, 'edge-cli-1')).toBe('registered');

    const revoked = await admin(['clients', 'revoke', first.clientId]);
    expect(revoked).toMatchObject({ code: 0, stderr: '' });
    expect(revoked.stdout).toContain(`revoked client ${first.clientId} (edge cluster)`);
    expect(await connectAs(second.secret, 'edge-cli-1')).toBe(status.UNAUTHENTICATED);
    const json = JSON.parse((await admin(['clients', 'list', '-o', 'json'])).stdout) as {
      clientId: string;
      revoked: string | null;
    }[];
    expect(json.find((c) => c.clientId === first.clientId)?.revoked).toEqual(expect.any(String));
  }, 120_000);

  it('prints a deployments credential as JSON with its secret once, usable at POST /oauth/token', async () => {
    const created = await admin([
      'clients',
      'create',
      '--name',
      'ci',
      '--type',
      'deployments',
      '--role',
      'ops',
      '-o',
      'json',
    ]);
    expect(created.code).toBe(0);
    const body = JSON.parse(created.stdout) as { clientId: string; clientSecret: string; type: string };
    expect(body.type).toBe('deployments');
    const token = await fetch(`${cp.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: body.clientId,
        client_secret: body.clientSecret,
      }),
    });
    expect(token.status).toBe(200);
  }, 60_000);

  it("says what the server refused: a non-admin's 403 and a missing agent id's 400, exiting 1", async () => {
    const forbidden = await as(USERS.ops.token)(['clients', 'list']);
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toContain('forbidden (403)');
    const noAgent = await admin([
      'clients',
      'create',
      '--name',
      'x',
      '--type',
      'remoteNetworkAgent',
      '--role',
      'ops',
    ]);
    expect(noAgent.code).toBe(1);
    expect(noAgent.stderr).toContain('(400)');
    expect(noAgent.stderr).toContain('agentId');
    const unknown = await admin(['clients', 'revoke', 'no-such-client']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('not found (404)');
  }, 60_000);
});
