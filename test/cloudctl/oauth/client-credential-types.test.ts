// Client credentials people make at runtime (/clients, issue 39), over real sockets against a real
// control plane: a name, one or more roles and a type. A remoteNetworkAgent credential connects an
// agent cloudctl's config does not know, as the agent id it is bound to, with its secret or a token
// issued for it; revoking or rotating it refuses it and ends its open streams; a deployments
// credential cannot connect as an agent, and a remote network agent's token cannot call the HTTP API.
import { status } from '@grpc/grpc-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  helloFor,
  isServiceError,
  startTestControlPlane,
  TestAgent,
  type TestControlPlane,
  USERS,
} from '../harness.ts';
import { type ApiClient, apiClient } from '../http-client.ts';

let cp: TestControlPlane;
let root: ApiClient;
const agents: TestAgent[] = [];

interface Created {
  clientId: string;
  clientSecret: string;
}

beforeAll(async () => {
  cp = await startTestControlPlane();
  root = apiClient(cp.url, USERS.admin.token);
});

afterEach(() => {
  for (const agent of agents.splice(0)) agent.close();
});

afterAll(async () => {
  await cp?.close();
});

async function createAgentCredential(agentId: string, name = `agent ${agentId}`): Promise<Created> {
  const created = await root.post('/clients', { name, type: 'remoteNetworkAgent', roles: ['ops'], agentId });
  expect(created.status).toBe(201);
  return created.body;
}

function agentWith(token: string): TestAgent {
  const agent = new TestAgent(cp.address, { token });
  agents.push(agent);
  return agent;
}

async function tokenFor(client: Created): Promise<string> {
  const answer = await apiClient(cp.url).post('/oauth/token', {
    grant_type: 'client_credentials',
    client_id: client.clientId,
    client_secret: client.clientSecret,
  });
  expect(answer.status).toBe(200);
  return answer.body.access_token;
}

/** The agent's sessions as cloudctl's registry holds them. */
function connectedSessions(agentId: string): number {
  return cp.plane.registry.list().filter((s) => s.agentId === agentId).length;
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Opens a session with `token` and resolves with the status it was refused with. */
async function refusal(token: string, agentId: string): Promise<{ code: number; details: string }> {
  const agent = agentWith(token);
  agent.openSession().write({ hello: helloFor(agentId, []) });
  const ended = await agent.sessionEnded;
  if (ended === undefined) throw new Error('no session was opened');
  return ended;
}

describe('POST /clients', () => {
  it('creates a credential of a type with several roles, answering its secret once and listing it without', async () => {
    const created = await root.post('/clients', {
      name: 'release pipeline',
      type: 'deployments',
      roles: ['ops', 'dev'],
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body).toMatchObject({
      name: 'release pipeline',
      type: 'deployments',
      roles: ['ops', 'dev'],
      agentId: null,
      createdBy: 'root',
      rotated: null,
      revoked: null,
    });
    expect(created.body.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const agent = await createAgentCredential('edge-7');
    const listed = await root.get('/clients');
    expect(listed.status).toBe(200);
    const byId = new Map(listed.body.map((c: { clientId: string }) => [c.clientId, c]));
    expect(byId.get(created.body.clientId)).toMatchObject({ type: 'deployments', roles: ['ops', 'dev'] });
    expect(byId.get(agent.clientId)).toMatchObject({ type: 'remoteNetworkAgent', agentId: 'edge-7' });
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(created.body.clientSecret);
    expect(text).not.toContain(agent.clientSecret);
    expect(text).not.toContain('clientSecret');
  });

  it('is for administrators only', async () => {
    const ops = apiClient(cp.url, USERS.ops.token);
    const body = { name: 'x', type: 'deployments', roles: ['ops'] };
    expect((await ops.post('/clients', body)).status).toBe(403);
    expect((await ops.get('/clients')).status).toBe(403);
    expect((await apiClient(cp.url).get('/clients')).status).toBe(401);
    const mine = await createAgentCredential('edge-admin-only');
    expect((await ops.delete(`/clients/${mine.clientId}`)).status).toBe(403);
    expect((await ops.post(`/clients/${mine.clientId}/rotate`)).status).toBe(403);
  });

  it.each([
    [{ name: 'a', type: 'deployments', roles: ['ops team'] }, 'roles[0]', 'whitespace'],
    [{ name: 'a', type: 'deployments', roles: ['ops', 'on call'] }, 'roles[1]', 'whitespace'],
    [{ name: 'a', type: 'deployments', roles: [] }, 'roles', 'at least one role'],
    [{ name: 'a', type: 'remoteNetworkAgent', roles: ['ops'] }, 'agentId', 'needs the agentId'],
    [{ name: 'a', type: 'remoteNetworkAgent', roles: ['ops'], agentId: '' }, 'agentId', ''],
    [{ name: 'a', type: 'deployments', roles: ['ops'], agentId: 'edge-1' }, 'agentId', 'leave agentId out'],
    [{ name: 'a', type: 'admin', roles: ['ops'] }, 'type', ''],
  ])('refuses %j with a 400 naming %s', async (body, path, words) => {
    const refused = await root.post('/clients', body);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(path);
    expect(refused.body.message).toContain(words);
  });
});

describe('a remoteNetworkAgent credential', () => {
  it('connects an agent the config does not know, as the agent id it is bound to', async () => {
    const credential = await createAgentCredential('edge-1');
    const agent = agentWith(credential.clientSecret);
    const registered = await agent.connect(helloFor('edge-1', ['edge-1-acc']));
    expect(registered.registered?.cache.map((c) => c.account)).toEqual(['edge-1-acc']);
    expect(connectedSessions('edge-1')).toBe(1);
    const account = await root.get('/agents/orchestrator/accounts/edge-1-acc');
    expect(account.status).toBe(200);
  });

  it('connects as its agent only: another agent id in the hello is PERMISSION_DENIED', async () => {
    const credential = await createAgentCredential('edge-2');
    const ended = await refusal(credential.clientSecret, 'agent-1');
    expect(ended.code).toBe(status.PERMISSION_DENIED);
    expect(ended.details).toContain('hello.agent_id differs');
  });

  it('also connects with an access token POST /oauth/token issued for it', async () => {
    const credential = await createAgentCredential('edge-3');
    const agent = agentWith(await tokenFor(credential));
    await agent.connect(helloFor('edge-3', []));
    expect(connectedSessions('edge-3')).toBe(1);
  });

  it('cannot call the HTTP API: its token is refused with the reason, and it may not deploy', async () => {
    const credential = await createAgentCredential('edge-4');
    const asAgent = apiClient(cp.url, await tokenFor(credential));
    for (const answer of [await asAgent.get('/deployments'), await asAgent.post('/deployments', {})]) {
      expect(answer.status).toBe(401);
      expect(answer.body.message).toContain('remote network agent credential');
    }
  });

  it('revoked: its open session ends with UNAUTHENTICATED, and it is refused from then on', async () => {
    const credential = await createAgentCredential('edge-5');
    const agent = agentWith(credential.clientSecret);
    await agent.connect(helloFor('edge-5', []));
    const token = await tokenFor(credential);

    const revoked = await root.delete(`/clients/${credential.clientId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked).toEqual(expect.any(String));
    const ended = await agent.sessionEnded;
    expect(ended?.code).toBe(status.UNAUTHENTICATED);
    expect(ended?.details).toContain('revoked');
    await waitFor(() => connectedSessions('edge-5') === 0, 'the session leaving the registry');

    for (const refusedWith of [credential.clientSecret, token]) {
      const again = await refusal(refusedWith, 'edge-5');
      expect(again.code).toBe(status.UNAUTHENTICATED);
    }
    await expect(agentWith(credential.clientSecret).resumeVersions([])).rejects.toSatisfy(
      (error) => isServiceError(error) && error.code === status.UNAUTHENTICATED,
    );
    expect((await root.delete('/clients/no-such-credential')).status).toBe(404);
  });

  it('rotated: the old secret stops at once (its session ends), the new one answered once connects', async () => {
    const credential = await createAgentCredential('edge-6');
    const agent = agentWith(credential.clientSecret);
    await agent.connect(helloFor('edge-6', []));

    const rotated = await root.post(`/clients/${credential.clientId}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(rotated.body).toMatchObject({
      clientId: credential.clientId,
      agentId: 'edge-6',
      rotated: expect.any(String),
    });
    expect(rotated.body.clientSecret).not.toBe(credential.clientSecret);
    expect((await agent.sessionEnded)?.code).toBe(status.UNAUTHENTICATED);
    expect((await refusal(credential.clientSecret, 'edge-6')).code).toBe(status.UNAUTHENTICATED);

    await agentWith(rotated.body.clientSecret).connect(helloFor('edge-6', []));
    expect(connectedSessions('edge-6')).toBe(1);
    const listed = await root.get('/clients');
    expect(JSON.stringify(listed.body)).not.toContain(rotated.body.clientSecret);

    await root.delete(`/clients/${credential.clientId}`);
    const late = await root.post(`/clients/${credential.clientId}/rotate`);
    expect(late.status).toBe(409);
    expect(late.body.message).toContain('revoked');
    expect((await root.post('/clients/no-such-credential/rotate')).status).toBe(404);
  });

  it('revoked where no stream hears of it (another replica): the session ends at its next heartbeat', async () => {
    const credential = await createAgentCredential('edge-8');
    const agent = agentWith(credential.clientSecret);
    await agent.connect(helloFor('edge-8', []));
    // The store alone, as another replica's revocation reaches this one.
    await cp.plane.store.oauth.revokeClient(credential.clientId, new Date());
    agent.send({ heartbeat: { sequence: 1 } });
    const ended = await agent.sessionEnded;
    expect(ended?.code).toBe(status.UNAUTHENTICATED);
    expect(ended?.details).toContain('revoked or its secret rotated');
  });
});

describe('a deployments credential', () => {
  it('cannot connect as an agent, by its secret or its token (PERMISSION_DENIED, saying why)', async () => {
    const created = await root.post('/clients', { name: 'webhook job', type: 'deployments', roles: ['ops'] });
    for (const token of [created.body.clientSecret, await tokenFor(created.body)]) {
      const ended = await refusal(token, 'agent-1');
      expect(ended.code).toBe(status.PERMISSION_DENIED);
      expect(ended.details).toContain('remoteNetworkAgent');
    }
  });

  it('calls the HTTP API with its roles, through a token from POST /oauth/token', async () => {
    const created = await root.post('/clients', {
      name: 'reader',
      type: 'deployments',
      roles: ['guests', 'dev'],
    });
    const asClient = apiClient(cp.url, await tokenFor(created.body));
    expect((await asClient.get('/deployments')).status).toBe(200);
    // Its roles, not an administrator's.
    expect((await asClient.get('/clients')).status).toBe(403);
  });
});

describe('/oauth/clients (deprecated)', () => {
  it('still creates Deployments Full Access clients and lists every credential with its first role', async () => {
    const created = await root.post('/oauth/clients', { name: 'old script', role: 'ops' });
    expect(created.status).toBe(201);
    const listed = await root.get('/clients');
    expect(listed.body.find((c: { clientId: string }) => c.clientId === created.body.clientId)).toMatchObject(
      {
        type: 'deployments',
        roles: ['ops'],
      },
    );
    const agent = await createAgentCredential('edge-legacy');
    const old = await root.get('/oauth/clients');
    expect(old.body.find((c: { clientId: string }) => c.clientId === agent.clientId)).toMatchObject({
      role: 'ops',
    });
    const document = await apiClient(cp.url).get('/v2/api-docs');
    expect(document.body.paths['/oauth/clients'].post.deprecated).toBe(true);
    expect(document.body.paths['/clients'].post.deprecated).toBeUndefined();
  });
});

describe('secrets', () => {
  it('never reach the log', async () => {
    const credential = await createAgentCredential('edge-logged');
    const token = await tokenFor(credential);
    await agentWith(credential.clientSecret).connect(helloFor('edge-logged', []));
    await refusal(`${credential.clientSecret}x`, 'edge-logged');
    const rotated = await root.post(`/clients/${credential.clientId}/rotate`);
    const log = JSON.stringify(cp.logs);
    expect(log).toContain(credential.clientId);
    for (const secret of [credential.clientSecret, token, rotated.body.clientSecret])
      expect(log).not.toContain(secret);
  });
});
