// The credentials API against a real control plane over real HTTP: accounts defined in cloudctl with
// their history, accounts registered by an agent (over real gRPC) listed beside them and read-only,
// and who may read and write what.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENT_TOKEN,
  helloFor,
  startTestControlPlane,
  TestAgent,
  type TestControlPlane,
  USERS,
} from './harness.ts';
import { type ApiClient, apiClient } from './http-client.ts';

const REFERENCE = 'encrypted:k8s!n:team-kubeconfig!k:config';

function definition(name: string, extra: Record<string, unknown> = {}) {
  return { name, type: 'orchestrator', context: 'kind-a', ...extra };
}

describe('credentials API', () => {
  let cp: TestControlPlane;
  let agent: TestAgent;
  let root: ApiClient;
  let dana: ApiClient;
  let olaf: ApiClient;
  let nina: ApiClient;
  let anonymous: ApiClient;

  beforeAll(async () => {
    cp = await startTestControlPlane();
    root = apiClient(cp.url, USERS.admin.token);
    dana = apiClient(cp.url, USERS.dev.token);
    olaf = apiClient(cp.url, USERS.ops.token);
    nina = apiClient(cp.url, USERS.nobody.token);
    anonymous = apiClient(cp.url);
    agent = new TestAgent(cp.address, { token: AGENT_TOKEN });
    // Registers agent-acc from agent-1's config file: READ dev, WRITE ops.
    await agent.connect(helloFor('agent-1', ['agent-acc']));
  });

  afterAll(async () => {
    agent?.close();
    await cp?.close();
  });

  it('creates, reads, updates and deletes an account, each write a revision of its history', async () => {
    const before = Date.now();
    const posted = definition('team-a', {
      orchConfigContents: REFERENCE,
      namespaces: ['web'],
      permissions: { READ: ['dev'], WRITE: ['ops'] },
    });
    const created = await olaf.post('/credentials', posted);
    expect(created.status).toBe(200);
    // As stored: the reference, never its value, and the agent's defaults filled in.
    expect(created.body).toMatchObject({ ...posted, omitNamespaces: [], serviceAccount: false });

    const read = await dana.get('/credentials/team-a');
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      name: 'team-a',
      type: 'orchestrator',
      cloudProvider: 'orchestrator',
      accountType: 'team-a',
      environment: 'team-a',
      source: 'cloudctl',
      permissions: { READ: ['dev'], WRITE: ['ops'] },
      requiredGroupMembership: [],
      orchConfigContents: REFERENCE,
      namespaces: ['web'],
    });

    const updated = await olaf.put('/credentials', { ...posted, context: 'kind-b', environment: 'prod' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ context: 'kind-b', environment: 'prod' });
    expect((await dana.get('/credentials/team-a')).body).toMatchObject({
      context: 'kind-b',
      environment: 'prod',
    });

    expect((await olaf.delete('/credentials/team-a')).status).toBe(204);
    expect((await dana.get('/credentials/team-a')).status).toBe(404);
    expect((await olaf.put('/credentials', posted)).status).toBe(404);
    const after = Date.now();

    // The history outlives the account, for those who could read it.
    const history = await dana.get('/credentials/team-a/history');
    expect(history.status).toBe(200);
    expect(history.body.map((r: { version: number; deleted: boolean }) => [r.version, r.deleted])).toEqual([
      [3, true],
      [2, false],
      [1, false],
    ]);
    expect(history.body[0].account).toBeNull();
    expect(history.body[1].account).toMatchObject({ context: 'kind-b', orchConfigContents: REFERENCE });
    expect(history.body[2].account).toMatchObject({ context: 'kind-a' });
    const times: number[] = history.body.map((r: { timestamp: number }) => r.timestamp).reverse();
    expect(times[0]).toBeGreaterThanOrEqual(before);
    expect(times[2]).toBeLessThanOrEqual(after);
    expect(times[1]).toBeGreaterThanOrEqual(times[0] ?? Number.NaN);
    expect(times[2]).toBeGreaterThanOrEqual(times[1] ?? Number.NaN);
    expect((await nina.get('/credentials/team-a/history')).status).toBe(403);
    expect((await nina.get('/credentials/never-defined/history')).status).toBe(404);
  });

  it('answers 401 with a Bearer challenge without a token', async () => {
    for (const answer of [
      await anonymous.get('/credentials'),
      await anonymous.post('/credentials', definition('sneaky')),
      await anonymous.get('/credentials/type/orchestrator?limit=1'),
    ]) {
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    expect((await root.get('/credentials/sneaky')).status).toBe(404);
  });

  it('refuses writes to users without WRITE, and definitions the writer could not change afterwards', async () => {
    const guarded = definition('team-b', { permissions: { READ: ['dev'], WRITE: ['ops'] } });
    expect((await root.post('/credentials', guarded)).status).toBe(200);

    const put = await dana.put('/credentials', { ...guarded, context: 'mine' });
    expect(put.status).toBe(403);
    expect(put.body.message).toContain('dana');
    expect((await dana.delete('/credentials/team-b')).status).toBe(403);
    // nina may not even read it.
    expect((await nina.get('/credentials/team-b')).status).toBe(403);

    // A new account: the posted permissions decide.
    const foreign = await nina.post(
      '/credentials',
      definition('nina-for-ops', { permissions: { WRITE: ['ops'] } }),
    );
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toContain('WRITE');
    expect((await nina.post('/credentials', definition('nina-open'))).status).toBe(200);
    // Handing the account to another team is an admin's move.
    expect((await olaf.put('/credentials', { ...guarded, permissions: { WRITE: ['dev'] } })).status).toBe(
      403,
    );
    expect((await root.put('/credentials', { ...guarded, permissions: { WRITE: ['dev'] } })).status).toBe(
      200,
    );
    expect((await dana.get('/credentials/team-b')).body.context).toBe('kind-a');
    expect((await root.get('/credentials/team-b/history')).body).toHaveLength(2);
  });

  it("lists the accounts each user may read, agents' and cloudctl's, and leaves the rest out", async () => {
    await root.post('/credentials', definition('list-open'));
    await root.post('/credentials', definition('list-dev', { permissions: { READ: ['dev'] } }));
    await root.post(
      '/credentials',
      definition('list-ops', { permissions: { READ: ['ops'], WRITE: ['ops'] } }),
    );
    const mine = ['agent-acc', 'list-dev', 'list-open', 'list-ops'];
    const seen = async (client: ApiClient) => {
      const answer = await client.get('/credentials');
      expect(answer.status).toBe(200);
      return answer.body.map((a: { name: string }) => a.name).filter((n: string) => mine.includes(n));
    };
    expect(await seen(dana)).toEqual(['agent-acc', 'list-dev', 'list-open']);
    expect(await seen(nina)).toEqual(['list-open']);
    expect(await seen(olaf)).toEqual(['agent-acc', 'list-ops', 'list-open'].sort());
    expect(await seen(root)).toEqual(mine);

    const plain = (await dana.get('/credentials')).body.find((a: { name: string }) => a.name === 'list-dev');
    expect(plain).toEqual({
      name: 'list-dev',
      type: 'orchestrator',
      cloudProvider: 'orchestrator',
      accountType: 'list-dev',
      environment: 'list-dev',
      source: 'cloudctl',
      permissions: { READ: ['dev'], WRITE: [] },
      requiredGroupMembership: [],
      challengeDestructiveActions: false,
      primaryAccount: false,
    });
    const expanded = (await dana.get('/credentials?expand=true')).body.find(
      (a: { name: string }) => a.name === 'list-dev',
    );
    expect(expanded).toMatchObject({ ...plain, context: 'kind-a', namespaces: [] });
    expect((await dana.get('/credentials?expand=yes')).status).toBe(400);
  });

  it("lists an agent's accounts as static-agent-config and refuses to change them here", async () => {
    const listed = (await dana.get('/credentials?expand=true')).body.find(
      (a: { name: string }) => a.name === 'agent-acc',
    );
    expect(listed).toMatchObject({
      source: 'static-agent-config',
      permissions: { READ: ['dev'], WRITE: ['ops'] },
      agentId: 'agent-1',
    });
    expect((await dana.get('/credentials/agent-acc')).body).toMatchObject({ source: 'static-agent-config' });

    const message = "account agent-acc is defined in agent agent-1's config file; change it there";
    const put = await olaf.put('/credentials', definition('agent-acc'));
    expect(put.status).toBe(409);
    expect(put.body.message).toBe(message);
    const del = await root.delete('/credentials/agent-acc');
    expect(del.status).toBe(409);
    expect(del.body.message).toBe(message);
    const post = await root.post('/credentials', definition('agent-acc'));
    expect(post.status).toBe(409);
    expect(post.body.message).toContain('agent agent-1');
    expect((await dana.get('/credentials/agent-acc/history')).body).toEqual([]);
  });

  it('answers 409 to a second create of a name, also when both arrive at once', async () => {
    expect((await root.post('/credentials', definition('dup'))).status).toBe(200);
    const again = await root.post('/credentials', definition('dup', { context: 'other' }));
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('dup');
    expect((await root.get('/credentials/dup')).body.context).toBe('kind-a');

    const racing = await Promise.all(
      [1, 2, 3, 4].map((n) => root.post('/credentials', definition('race', { context: `c${n}` }))),
    );
    expect(racing.map((a) => a.status).sort()).toEqual([200, 409, 409, 409]);
    expect((await root.get('/credentials/race/history')).body).toHaveLength(1);
  });

  it('refuses a bad definition with 400, naming the field', async () => {
    const refused = async (body: unknown, field: string, why: RegExp) => {
      const answer = await root.post('/credentials', body);
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('REQUEST_INVALID');
      expect(answer.body.message).toContain(field);
      expect(answer.body.message).toMatch(why);
      return answer.body.message as string;
    };
    await refused(definition('bad-1', { colour: 'blue' }), 'colour', /^body: unknown field colour/);
    await refused(
      definition('bad-2', { permissions: { READ: ['dev team'] } }),
      'body.permissions.READ[0]',
      /whitespace/,
    );
    await refused(
      definition('bad-3', { permissions: { read: ['dev'] } }),
      'body.permissions',
      /READ and WRITE/,
    );
    const literal = 'apiVersion: v1\nkind: Config\nusers: [{name: u, user: {token: s3cr3t}}]';
    const message = await refused(
      definition('bad-4', { orchConfigContents: literal }),
      'body.orchConfigContents',
      /secret reference/,
    );
    expect(message).not.toContain('s3cr3t');
    await refused(
      definition('bad-5', { orchConfigContents: 'encrypted:' }),
      'body.orchConfigContents',
      /engine/,
    );
    await refused(definition('a/b'), 'body.name', /no '\/'/);
    await refused(definition(''), 'body.name', /empty/);
    await refused(definition('type'), 'body.name', /reserved/);
    await refused({ ...definition('bad-6'), type: 'kubernetes' }, 'body.type', /orchestrator/);
    await refused(
      definition('bad-7', { serviceAccount: true, orchConfigFile: '/etc/kube/config' }),
      'body.orchConfigFile',
      /mutually exclusive/,
    );
    await refused(
      definition('bad-8', { orchConfigFile: literal }),
      'body.orchConfigFile',
      /orchConfigContents/,
    );
    await refused(
      definition('bad-9', { orchConfigContents: REFERENCE, serviceAccount: true }),
      'body.orchConfigContents',
      /mutually exclusive/,
    );
    for (const name of ['bad-1', 'bad-2', 'bad-3', 'bad-4', 'bad-5', 'bad-6', 'bad-7', 'bad-8', 'bad-9'])
      expect((await root.get(`/credentials/${name}`)).status).toBe(404);
  });

  it('pages the definitions of a type by name, from an inclusive start, skipping what the user may not read', async () => {
    for (const n of [1, 2, 3, 4, 5])
      await root.post(
        '/credentials',
        definition(`pg-${n}`, n === 2 ? { permissions: { READ: ['ops'] } } : {}),
      );
    const names = async (client: ApiClient, query: string) => {
      const answer = await client.get(`/credentials/type/orchestrator?${query}`);
      expect(answer.status).toBe(200);
      return answer.body.map((d: { name: string }) => d.name);
    };
    expect(await names(root, 'limit=2&startingAccountName=pg-')).toEqual(['pg-1', 'pg-2']);
    expect(await names(root, 'limit=2&startingAccountName=pg-3')).toEqual(['pg-3', 'pg-4']);
    expect((await names(root, 'limit=10&startingAccountName=pg-5'))[0]).toBe('pg-5');
    // pg-2 is not dana's to read: her page still holds two.
    expect(await names(dana, 'limit=2&startingAccountName=pg-')).toEqual(['pg-1', 'pg-3']);
    const first = (await root.get('/credentials/type/orchestrator?limit=1&startingAccountName=pg-1')).body[0];
    expect(first).toMatchObject({ name: 'pg-1', type: 'orchestrator', context: 'kind-a' });
    expect(await names(root, 'limit=5&startingAccountName=pg-')).not.toContain('agent-acc');
    expect(await names(root, 'limit=5')).toHaveLength(5);
    expect(await names(root, 'limit=100')).not.toContain('agent-acc');
    expect(await names(root, 'limit=10')).toHaveLength(10);
    expect((await root.get('/credentials/type/other?limit=10')).body).toEqual([]);

    for (const query of ['limit=0', 'limit=abc', 'limit=1.5', '']) {
      const answer = await root.get(`/credentials/type/orchestrator?${query}`);
      expect(answer.status).toBe(400);
      expect(answer.body.message).toContain('query parameter limit');
    }
  });

  it('documents the routes in the Swagger document', async () => {
    const doc = (await root.get('/v2/api-docs')).body;
    const list = doc.paths['/credentials'].get.parameters;
    expect(list).toContainEqual(expect.objectContaining({ name: 'expand', in: 'query', type: 'boolean' }));
    const byType = doc.paths['/credentials/type/{accountType}'].get.parameters;
    expect(byType).toContainEqual(expect.objectContaining({ name: 'limit', in: 'query', required: true }));
    expect(Object.keys(doc.paths['/credentials/{accountName}'])).toEqual(
      expect.arrayContaining(['get', 'delete']),
    );
    expect(doc.paths['/credentials/{accountName}/history'].get.tags).toEqual(['credentials']);
  });
});
