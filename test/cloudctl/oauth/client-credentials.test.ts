// OAuth client credentials end to end over real sockets: administrators create clients, a webhook
// job trades the client id and secret for a token at POST /oauth/token (a form, as the spec's jobs
// send it), and the token acts with the client's role on the HTTP API until it expires or the
// client is revoked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENT_TOKEN,
  helloFor,
  startTestControlPlane,
  TestAgent,
  type TestControlPlane,
  USERS,
} from '../harness.ts';
import { type ApiClient, apiClient } from '../http-client.ts';

let cp: TestControlPlane;
let root: ApiClient;
let agent: TestAgent;

interface TokenAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON answer field by field.
  body: any;
  headers: Headers;
}

/** POST /oauth/token as a webhook job sends it: a form, the spec's four fields. */
async function requestToken(fields: Record<string, string>, base = cp.url): Promise<TokenAnswer> {
  const response = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

async function createClient(name: string, role: string, admin = root) {
  const created = await admin.post('/oauth/clients', { name, role });
  expect(created.status).toBe(201);
  return created.body as { clientId: string; clientSecret: string };
}

async function tokenFor(client: { clientId: string; clientSecret: string }, base = cp.url): Promise<string> {
  const answer = await requestToken(
    {
      audience: base,
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    },
    base,
  );
  expect(answer.status).toBe(200);
  return answer.body.access_token;
}

const READ_PATH = '/agents/orchestrator/accounts/agent-acc';
const WRITE = {
  path: '/cache/orchestrator/manifest',
  body: { account: 'agent-acc', location: 'ns1', name: 'pod p' },
};

beforeAll(async () => {
  cp = await startTestControlPlane();
  root = apiClient(cp.url, USERS.admin.token);
  agent = new TestAgent(cp.address, { token: AGENT_TOKEN });
  // agent-acc, from agent-1's config file: READ dev, WRITE ops.
  await agent.connect(helloFor('agent-1', ['agent-acc']));
});

afterAll(async () => {
  agent?.close();
  await cp?.close();
});

describe('client credentials', () => {
  it('are created by an administrator only, the secret answered once and never listed', async () => {
    const refused = await apiClient(cp.url, USERS.ops.token).post('/oauth/clients', {
      name: 'x',
      role: 'ops',
    });
    expect(refused.status).toBe(403);
    expect((await apiClient(cp.url, USERS.ops.token).get('/oauth/clients')).status).toBe(403);
    expect((await apiClient(cp.url).get('/oauth/clients')).status).toBe(401);

    const created = await root.post('/oauth/clients', { name: 'webhook job', role: 'ops' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'webhook job', role: 'ops' });
    expect(created.body.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.headers.get('cache-control')).toBe('no-store');

    const listed = await root.get('/oauth/clients');
    expect(listed.status).toBe(200);
    const entry = listed.body.find((c: { clientId: string }) => c.clientId === created.body.clientId);
    expect(entry).toMatchObject({ name: 'webhook job', role: 'ops', createdBy: 'root', revoked: null });
    expect(JSON.stringify(listed.body)).not.toContain(created.body.clientSecret);
    expect(Object.keys(entry)).not.toContain('clientSecret');
  });

  it('refuses a role with whitespace (400)', async () => {
    const refused = await root.post('/oauth/clients', { name: 'bad', role: 'ops team' });
    expect(refused.status).toBe(400);
  });
});

describe('POST /oauth/token', () => {
  it('issues a Bearer token for the right secret, from a form or from JSON', async () => {
    const client = await createClient('issuer', 'dev');
    const form = await requestToken({
      audience: cp.url,
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    expect(form.status).toBe(200);
    expect(Object.keys(form.body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(form.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(form.headers.get('cache-control')).toBe('no-store');

    const json = await apiClient(cp.url).post('/oauth/token', {
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    expect(json.status).toBe(200);
    expect(json.body.access_token).not.toBe(form.body.access_token);
  });

  it('answers 401 invalid_client for a wrong secret or an unknown client', async () => {
    const client = await createClient('wrong-secret', 'dev');
    for (const fields of [
      { client_id: client.clientId, client_secret: `${client.clientSecret}x` },
      { client_id: 'no-such-client', client_secret: client.clientSecret },
    ]) {
      const answer = await requestToken({ grant_type: 'client_credentials', ...fields });
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    }
  });

  it('answers 400 unsupported_grant_type for another grant, invalid_request for a missing or repeated field', async () => {
    const client = await createClient('grants', 'dev');
    const password = await requestToken({
      grant_type: 'password',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    expect(password.status).toBe(400);
    expect(password.body.error).toBe('unsupported_grant_type');

    const missing = await requestToken({ grant_type: 'client_credentials', client_id: client.clientId });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      error: 'invalid_request',
      error_description: expect.stringContaining('client_secret'),
    });

    const repeated = await fetch(`${cp.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${client.clientId}&client_id=other&client_secret=${client.clientSecret}`,
    });
    expect(repeated.status).toBe(400);
    expect(await repeated.json()).toMatchObject({ error: 'invalid_request' });
  });

  it("answers 400 invalid_request for an audience other than this cloudctl's API, naming the one to ask for", async () => {
    const client = await createClient('audiences', 'dev');
    const ask = (audience?: string) =>
      requestToken({
        ...(audience === undefined ? {} : { audience }),
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
      });
    const elsewhere = await ask('https://api.cloud.example.io');
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body).toEqual({
      error: 'invalid_request',
      error_description: expect.stringMatching(
        /^audience "https:\/\/api\.cloud\.example\.io" is not this cloudctl's API: ask for "http:\/\/[^"]+"/,
      ),
    });
    // The address the job reached cloudctl at is this cloudctl, with or without a trailing slash.
    expect((await ask(`${cp.url}/`)).status).toBe(200);
    expect((await ask(cp.url.toUpperCase().replace('HTTP://', 'http://'))).status).toBe(200);
    expect((await ask()).status).toBe(200);
  });

  it('refuses a form on routes that take JSON only (415)', async () => {
    const answer = await fetch(`${cp.url}/oauth/clients`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${USERS.admin.token}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'name=form&role=ops',
    });
    expect(answer.status).toBe(415);
  });
});

describe('access tokens on the HTTP API', () => {
  it("act with the client's role: READ where the role may read, 403 beyond it", async () => {
    const dev = apiClient(cp.url, await tokenFor(await createClient('reader', 'dev')));
    const read = await dev.get(READ_PATH);
    expect(read.status).toBe(200);
    expect(read.body.name).toBe('agent-acc');
    const write = await dev.post(WRITE.path, WRITE.body);
    expect(write.status).toBe(403);

    const guest = apiClient(cp.url, await tokenFor(await createClient('guest', 'guests')));
    expect((await guest.get(READ_PATH)).status).toBe(403);
    // A client's token is no administrator's, whatever it may read.
    expect((await dev.get('/oauth/clients')).status).toBe(403);
  });

  it('stop working when the client is revoked (401), and the client gets no new token', async () => {
    const client = await createClient('revoked', 'dev');
    const token = await tokenFor(client);
    expect((await apiClient(cp.url, token).get(READ_PATH)).status).toBe(200);

    const revoked = await root.delete(`/oauth/clients/${client.clientId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked).toEqual(expect.any(String));
    expect((await apiClient(cp.url, token).get(READ_PATH)).status).toBe(401);
    const again = await requestToken({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    expect(again.status).toBe(401);
    expect(again.body.error).toBe('invalid_client');
    expect((await root.delete('/oauth/clients/no-such-client')).status).toBe(404);
  });

  it('never appear in the log, nor do client secrets', async () => {
    const client = await createClient('logged', 'dev');
    const token = await tokenFor(client);
    await apiClient(cp.url, token).get(READ_PATH);
    await requestToken({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: 'wrong',
    });
    const log = JSON.stringify(cp.logs);
    expect(log).toContain('/oauth/token');
    expect(log).toContain(`oauth-client:${client.clientId}`);
    expect(log).not.toContain(client.clientSecret);
    expect(log).not.toContain(token);
  });
});

describe('an access token past its lifetime', () => {
  it('is refused (401)', async () => {
    const short = await startTestControlPlane({ oauth: { tokenLifetimeSeconds: 1 } });
    const shortAgent = new TestAgent(short.address, { token: AGENT_TOKEN });
    try {
      await shortAgent.connect(helloFor('agent-1', ['agent-acc']));
      const client = await createClient('short-lived', 'dev', apiClient(short.url, USERS.admin.token));
      const answer = await requestToken(
        { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret },
        short.url,
      );
      expect(answer.body.expires_in).toBe(1);
      const user = apiClient(short.url, answer.body.access_token);
      expect((await user.get(READ_PATH)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await user.get(READ_PATH)).status).toBe(401);
    } finally {
      shortAgent.close();
      await short.close();
    }
  });
});
