// The check every test's API client applies to 2xx answers (http-client.ts) is only worth something
// if it fails: an answer that gains a field the document does not declare, or carries a field of
// another type, must be refused. Checked on a real answer of a real cloudctl against its own document.
// Then the statuses: every operation of the document is called for an account whose agent is away,
// and every answer's status must be one the document lists for it (503 where the agent is needed).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiDocumentCheck } from './api-document-check.ts';
import {
  AGENT_TOKEN,
  helloFor,
  startTestControlPlane,
  TestAgent,
  type TestControlPlane,
  USERS,
} from './harness.ts';
import { apiClient } from './http-client.ts';

let cp: TestControlPlane;
let agent: TestAgent | undefined;
let check: ApiDocumentCheck;

beforeAll(async () => {
  cp = await startTestControlPlane();
  check = await ApiDocumentCheck.load(cp.url);
});
afterAll(async () => {
  agent?.close();
  await cp?.close();
});

describe("the API document check of the tests' HTTP client", () => {
  it('passes a real answer as served, and refuses it with an undeclared or a mistyped field', async () => {
    agent = new TestAgent(cp.address, { token: AGENT_TOKEN });
    await agent.connect(helloFor('agent-1', ['doc-check']));
    const api = apiClient(cp.url, USERS.admin.token);
    const started = await api.post('/ops/scaleManifest', {
      account: 'doc-check',
      manifestName: 'deployment web',
      location: 'default',
      replicas: 2,
    });
    expect(started.status).toBe(200);
    const path = `/task/${started.body.id}`;
    const task = (await api.get(path)).body;
    expect(check.problems('GET', path, 200, task)).toEqual([]);

    expect(check.problems('GET', path, 200, { ...task, surprise: 1 })).toEqual([
      `GET ${path} (200): /task/{id}: body must NOT have additional properties ({"additionalProperty":"surprise"})`,
    ]);
    expect(
      check.problems('GET', path, 200, { ...task, status: { ...task.status, completed: 'no' } }),
    ).toEqual([`GET ${path} (200): /task/{id}: body/status/completed must be boolean`]);
    // null only where the document says x-nullable: requestId may be null, user may not.
    expect(check.problems('GET', path, 200, { ...task, requestId: null })).toEqual([]);
    expect(check.problems('GET', path, 200, { ...task, user: null })[0]).toMatch(/body\/user must be string/);
  });

  it('matches a concrete path to its template, literal segments first, and refuses an undocumented one', () => {
    expect(check.problems('GET', '/credentials/doc-check', 200, { name: 7 })[0]).toMatch(
      /^GET \/credentials\/doc-check \(200\): \/credentials\/\{accountName\}: body/,
    );
    expect(check.problems('GET', '/credentials/type/orchestrator', 200, [])).toEqual([]);
    expect(check.problems('GET', '/no-such-route', 200, {})).toEqual([
      'GET /no-such-route (200): no operation of the API document matches the request',
    ]);
  });

  it("lists every status a route answers while the account's agent is away, 503 where it needs the agent", async () => {
    agent?.close();
    const headers = { authorization: `Bearer ${USERS.admin.token}`, 'content-type': 'application/json' };
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${cp.url}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const manifest = '/manifests/doc-check/default/deployment%20web';
    await vi.waitFor(async () => expect((await call('GET', manifest)).status).toBe(503), {
      timeout: 30_000,
      interval: 100,
    });
    const document = (await (await call('GET', '/v2/api-docs')).json()) as { paths: Record<string, object> };
    /** A value for each path parameter: the account, the cloud provider, an object's "<kind> <name>". */
    const bound: Record<string, string> = {
      account: 'doc-check',
      accountName: 'doc-check',
      cloudProvider: 'orchestrator',
      provider: 'orchestrator',
      type: 'orchestrator',
      accountType: 'orchestrator',
      location: 'default',
      region: 'default',
      namespace: 'default',
      scope: 'default',
      name: 'deployment web',
      manifestName: 'deployment web',
      clusterName: 'deployment web',
    };
    const answered: string[] = [];
    const problems: string[] = [];
    for (const [template, operations] of Object.entries(document.paths)) {
      if (!('get' in operations)) continue;
      const path = template.replace(/\{([^}]+)\}/g, (_, name: string) =>
        encodeURIComponent(bound[name] ?? 'x'),
      );
      if (path === '/watch') continue; // a stream that stays open: no status to wait for beyond its 200
      const { status } = await call('GET', path);
      answered.push(`GET ${template} ${status}`);
      problems.push(...check.statusProblems('GET', path, status));
    }
    const deploy = {
      account: 'doc-check',
      manifests: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } }],
    };
    for (const path of ['/ops/deployManifest', '/orchestrator/ops/deployManifest']) {
      const { status } = await call('POST', path, deploy);
      answered.push(`POST ${path} ${status}`);
      problems.push(...check.statusProblems('POST', path, status));
    }
    expect(problems).toEqual([]);
    // The sweep reached the agent where a route needs it: a live read, and a deploy's look at the cluster.
    expect(answered).toEqual(
      expect.arrayContaining([
        'GET /manifests/{account}/{location}/{name} 503',
        'POST /ops/deployManifest 503',
        'POST /orchestrator/ops/deployManifest 503',
      ]),
    );
  });
});
