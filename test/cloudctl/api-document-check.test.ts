// The check every test's API client applies to 2xx answers (http-client.ts) is only worth something
// if it fails: an answer that gains a field the document does not declare, or carries a field of
// another type, must be refused. Checked on a real answer of a real cloudctl against its own document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
