// GET /manifests while the account's agent is away: cloudctl answers the copy it stores, with the
// status read from it, no events and a warning saying whose copy it is and from when; an object the
// store does not hold is still a 404, and a kind it does not watch still a 503 (nobody can answer).
// Once the agent is back the read is live again. cloudctl and the agent run as processes against the
// shared real cluster; the agent is stopped as an operator would stop it (SIGTERM).
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { useSystem } from '../../support/system-fixture.ts';
import { taskDone } from '../../support/task-wait.ts';
import { type ApiAnswer, apiClient } from '../http-client.ts';

const NS = 'manifest-store-reads';
const TOKENS = { agent: 'agent-token-store-reads-5d2a', ops: 'ops-token-store-reads-81c3' };

const fixture = useSystem({
  name: NS,
  agentToken: TOKENS.agent,
  users: [{ name: 'olga', token: TOKENS.ops, roles: ['ops'] }],
  kinds: ['deployment', 'replicaSet', 'pod', 'configMap'],
  read: ['ops'],
  write: ['ops'],
});
const ops = () => apiClient(fixture.system.url, TOKENS.ops);
const manifest = (name: string, query = '') =>
  ops().get(`/manifests/${NS}/${NS}/${encodeURIComponent(name)}${query}`);

async function until(ask: () => Promise<ApiAnswer>, done: (a: ApiAnswer) => boolean): Promise<ApiAnswer> {
  const deadline = Date.now() + 45_000;
  for (;;) {
    const answer = await ask();
    if (done(answer) || Date.now() > deadline) return answer;
    await sleep(250);
  }
}

const storedCopy = (a: ApiAnswer) =>
  a.status === 200 && a.body.warnings.some((w: { type: string }) => w.type === 'storedCopy');

describe("GET /manifests while the account's agent is away", () => {
  it('answers the stored copy with its status and a warning, 404 and 503 where the store cannot answer, and live again once the agent is back', async () => {
    const started = await ops().post('/ops', [
      {
        deployManifest: {
          account: NS,
          moniker: { app: 'shop' },
          manifests: [
            {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              metadata: { name: 'web', namespace: NS },
              spec: {
                replicas: 2,
                selector: { matchLabels: { app: 'web' } },
                template: {
                  metadata: { labels: { app: 'web' } },
                  spec: { containers: [{ name: 'web', image: 'registry.example/web:2.0' }] },
                },
              },
            },
          ],
        },
      },
    ]);
    expect(started.status).toBe(200);
    expect((await taskDone(ops(), started.body.id)).status).toMatchObject({ completed: true, failed: false });
    const live = await until(
      () => manifest('deployment web'),
      (a) => a.status === 200 && a.body.status.stable.state === true && a.body.events.length > 0,
    );
    expect(live.body).toMatchObject({ status: { stable: { state: true } }, warnings: [] });

    await fixture.system.agent?.stop('SIGTERM');
    const before = Date.now();
    const away = await until(() => manifest('deployment web'), storedCopy);
    expect(away.status).toBe(200);
    expect(away.body).toMatchObject({
      name: 'deployment web',
      location: NS,
      manifest: { kind: 'Deployment', metadata: { name: 'web', uid: live.body.manifest.metadata.uid } },
      status: { stable: { state: true }, available: { state: true } },
      moniker: { app: 'shop', cluster: 'deployment web' },
      events: [],
    });
    expect(away.body.warnings).toHaveLength(1);
    const { message } = away.body.warnings[0];
    expect(message).toMatch(
      /^the account's agent is not connected: this is cloudctl's stored copy from (\S+); events are not shown$/,
    );
    // The copy's time is when the watch last wrote it: before the agent was stopped.
    const storedAt = Date.parse(message.match(/from (\S+);/)[1]);
    expect(storedAt).toBeLessThanOrEqual(before);
    // Orca's wait for stability reads without events; the answer is the same stored copy.
    const withoutEvents = await manifest('deployment web', '?includeEvents=false');
    expect(withoutEvents.body.warnings).toEqual(away.body.warnings);

    const missing = await manifest('deployment nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.body.message).toContain('name: deployment nothing-here');
    // Namespaces are not watched for the account: only the cluster could answer.
    const unwatched = await ops().get(`/manifests/${NS}/_/namespace%20${NS}`);
    expect(unwatched.status).toBe(503);
    expect(unwatched.body.code).toBe('AGENT_UNAVAILABLE');

    await fixture.system.startAgent();
    const back = await until(
      () => manifest('deployment web'),
      (a) => a.status === 200 && a.body.warnings.length === 0 && a.body.events.length > 0,
    );
    expect(back.body.warnings).toEqual([]);
    expect(back.body.events[0]).toMatchObject({ kind: 'Event', involvedObject: { name: 'web' } });
    expect((await ops().get(`/manifests/${NS}/_/namespace%20${NS}`)).status).toBe(200);
  }, 120_000);
});
