// GET /watch end to end: `cloudctl serve` on PGlite on disk and `orch-agent run` as processes, one
// account watching ConfigMaps of its namespace of the shared cluster. A change made in the cluster
// reaches a client as an `object` event with its status; a removal as `removed`; events are numbered
// in order; a user without READ on the account gets none of them; a task started through the API
// streams as `task` events; a client resumes by Last-Event-ID across a SIGKILL of cloudctl with each
// object's final state received and no number twice; a position from nowhere is a `reset`.
import { describe, expect, it } from 'vitest';
import { ConfigMapChurn, REVISION_LABEL } from '../../support/config-map-churn.ts';
import { type SseEvent, SseStream } from '../../support/sse-client.ts';
import { useSystem } from '../../support/system-fixture.ts';
import { taskDone } from '../../support/task-wait.ts';
import { apiClient } from '../http-client.ts';

const NS = 'watch-feed';
const TOKENS = {
  agent: 'agent-token-watch-5d1e',
  ops: 'ops-token-watch-9a3c',
  guest: 'guest-token-watch-77b2',
};

const fixture = useSystem({
  name: NS,
  agentToken: TOKENS.agent,
  users: [
    { name: 'olga', token: TOKENS.ops, roles: ['ops'] },
    { name: 'gus', token: TOKENS.guest, roles: ['guests'] },
  ],
  kinds: ['configMap'],
  read: ['ops'],
  write: ['ops'],
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const watchUrl = (query = `account=${NS}`) => `${fixture.system.url}/watch?${query}`;

/** cloudctl_watch_clients as /metrics reports it now. */
async function watchClients(): Promise<number | undefined> {
  const text = await (await fetch(`${fixture.system.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('cloudctl_watch_clients '));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

const configMap = (name: string) => (e: SseEvent) => e.event === 'object' && e.data.name === name;
const numbers = (events: readonly SseEvent[]) =>
  events.filter((e) => e.event !== 'position' && e.id !== undefined).map((e) => Number(e.id));

describe('GET /watch', () => {
  it('refuses a caller without a token with 401, as every route', async () => {
    const stream = await SseStream.open(watchUrl());
    expect(stream.status).toBe(401);
  });

  it('streams a change and a removal made in the cluster, numbered in order, with the status /manifests computes', async () => {
    const stream = await SseStream.open(watchUrl(), bearer(TOKENS.ops));
    try {
      expect(stream.status).toBe(200);
      expect(stream.contentType).toMatch(/^text\/event-stream/);
      const position = await stream.waitFor((e) => e.event === 'position');
      expect(position.id).toBe(position.data.position);
      const churn = new ConfigMapChurn(fixture.cluster, NS, 'feed');
      await churn.create('feed-one');
      const changed = await stream.waitFor(configMap('feed-one'));
      expect(changed.data).toMatchObject({
        type: 'changed',
        account: NS,
        apiGroup: '',
        apiVersion: 'v1',
        kind: 'ConfigMap',
        spinnakerKind: 'configMap',
        namespace: NS,
        name: 'feed-one',
        moniker: { app: 'feed', cluster: 'configMap feed-one' },
        status: { stable: { state: true }, failed: { state: false } },
      });
      expect(changed.data.labels[REVISION_LABEL]).toBeDefined();
      expect(Number(changed.id)).toBeGreaterThan(Number(position.id));
      await churn.delete('feed-one');
      const removed = await stream.waitFor((e) => configMap('feed-one')(e) && e.data.type === 'removed');
      expect(removed.data).toMatchObject({ account: NS, kind: 'ConfigMap', moniker: { app: 'feed' } });
      const seen = numbers(stream.events);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      expect(new Set(seen).size).toBe(seen.length);
      await expect.poll(() => watchClients(), { timeout: 5_000 }).toBe(1);
    } finally {
      stream.close();
    }
    // A client that goes away is forgotten: nothing is kept for it.
    await expect.poll(() => watchClients(), { timeout: 5_000 }).toBe(0);
  });

  it('sends a user without READ on the account none of its events, while a reader gets them', async () => {
    const reader = await SseStream.open(watchUrl(''), bearer(TOKENS.ops));
    const guest = await SseStream.open(watchUrl(''), bearer(TOKENS.guest));
    const asked = await SseStream.open(watchUrl(`account=${NS}`), bearer(TOKENS.guest));
    try {
      expect([reader.status, guest.status, asked.status]).toEqual([200, 200, 200]);
      await guest.waitFor((e) => e.event === 'position');
      const churn = new ConfigMapChurn(fixture.cluster, NS, 'secret-app');
      await churn.create('not-for-gus');
      await reader.waitFor(configMap('not-for-gus'));
      expect(guest.events.filter((e) => e.event === 'object')).toEqual([]);
      expect(asked.events.filter((e) => e.event === 'object')).toEqual([]);
    } finally {
      for (const s of [reader, guest, asked]) s.close();
    }
  });

  it('streams a task started through the API until it completes', async () => {
    const stream = await SseStream.open(watchUrl('events=task'), bearer(TOKENS.ops));
    try {
      const api = apiClient(fixture.system.url, TOKENS.ops);
      const manifest = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'by-task', namespace: NS },
        data: {},
      };
      const answer = await api.post('/ops', [
        { deployManifest: { account: NS, moniker: { app: 'feed' }, manifests: [manifest] } },
      ]);
      expect(answer.status).toBe(200);
      const id: string = answer.body.id;
      const done = await stream.waitFor(
        (e) => e.event === 'task' && e.data.task.id === id && e.data.task.status.completed,
      );
      expect(done.data.task.status.failed).toBe(false);
      expect(done.data.accounts).toEqual([NS]);
      expect(stream.events.filter((e) => e.event === 'object')).toEqual([]);
      await taskDone(api, id);
    } finally {
      stream.close();
    }
  });

  it('answers a position it never gave with a reset, and starts from now', async () => {
    const stream = await SseStream.open(watchUrl(), {
      ...bearer(TOKENS.ops),
      'last-event-id': '999999999999',
    });
    try {
      const reset = await stream.waitFor((e) => e.event === 'reset');
      expect(reset.data.reason).toBe('UNKNOWN_POSITION');
      expect(reset.data.position).toBe(stream.events[0]?.data.position);
    } finally {
      stream.close();
    }
  });

  it('resumes after Last-Event-ID across a SIGKILL of cloudctl: every final state, no number twice', async () => {
    const churn = new ConfigMapChurn(fixture.cluster, NS, 'resume');
    const names = Array.from({ length: 12 }, (_, i) => `resume-${i}`);
    const first = await SseStream.open(watchUrl('application=resume'), bearer(TOKENS.ops));
    for (const name of names.slice(0, 6)) await churn.create(name);
    await first.waitFor(configMap('resume-5'));
    const lastId = first.lastId ?? 'none';
    expect(lastId).toMatch(/^\d+$/);
    await fixture.system.killCloudctl();
    await first.done;
    // While cloudctl is down: new objects, updates and removals, which the agent sends once it is back.
    for (const name of names.slice(6)) await churn.create(name);
    for (const name of names.slice(0, 3)) await churn.update(name);
    for (const name of [names[1], names[7]]) if (name !== undefined) await churn.delete(name);
    await fixture.system.serveCloudctl();
    const second = await SseStream.open(watchUrl('application=resume'), {
      ...bearer(TOKENS.ops),
      'last-event-id': String(lastId),
    });
    try {
      const expected = new Map<string, string | undefined>();
      const live = await fixture.cluster.request('GET', `/api/v1/namespaces/${NS}/configmaps`);
      const { items } = live.json as {
        items: { metadata: { name: string; labels: Record<string, string> } }[];
      };
      for (const item of items) {
        if (item.metadata.name.startsWith('resume-'))
          expected.set(item.metadata.name, item.metadata.labels[REVISION_LABEL]);
      }
      expect([...expected.keys()].sort()).toEqual(
        names.filter((n) => n !== 'resume-1' && n !== 'resume-7').sort(),
      );
      // Fold both streams into the state they describe; it must reach the cluster's.
      const state = () => {
        const seen = new Map<string, string | undefined>();
        for (const e of [...first.events, ...second.events]) {
          if (e.event !== 'object') continue;
          if (e.data.type === 'removed') seen.delete(e.data.name);
          else seen.set(e.data.name, e.data.labels[REVISION_LABEL]);
        }
        return seen;
      };
      const deadline = Date.now() + 30_000;
      while (
        JSON.stringify([...state()].sort()) !== JSON.stringify([...expected].sort()) &&
        Date.now() < deadline
      ) {
        await second.waitFor(() => false, 250).catch(() => {});
      }
      expect([...state()].sort()).toEqual([...expected].sort());
      const position = second.events[0];
      expect(position?.event).toBe('position');
      expect(position?.data.position).toBe(lastId);
      const all = numbers([...first.events, ...second.events]);
      expect(all).toEqual([...all].sort((a, b) => a - b));
      expect(new Set(all).size).toBe(all.length);
      expect(Math.min(...numbers(second.events))).toBeGreaterThan(Number(lastId));
    } finally {
      second.close();
    }
  });
});
