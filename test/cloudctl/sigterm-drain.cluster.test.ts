// cloudctl stopped with SIGTERM under load: `cloudctl serve` and `orch-agent run` as processes, the
// shared cluster. Deploy tasks are running (the agent applying many ConfigMaps) and a POST /ops is in
// flight, its body half sent, when the signal comes. cloudctl answers the request in flight, stops
// phase by phase as its log says (the API, then the work, then the agents' endpoint, the replicas,
// the stores) and exits 0, long before an operation's deadline. Served again on the same database,
// every task it acknowledged completes, the one answered while it was stopping included, with each
// ConfigMap applied once.
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { useSystem } from '../support/system-fixture.ts';
import { taskDone } from '../support/task-wait.ts';
import { apiClient } from './http-client.ts';

const NS = 'sigterm-drain';
const TOKENS = { agent: 'agent-token-sigterm-3b7d', ops: 'ops-token-sigterm-c41e' };
/** Deploy tasks running when the signal comes. */
const TASKS = 3;
/** Enough objects, each large enough, that a deploy takes a while to apply one by one. */
const OBJECTS = 60;
const FILLER = 'x'.repeat(8_000);
/** An operation's deadline is a minute: a drain that waited for one would take that long. */
const EXITS_WITHIN_MS = 20_000;
const COMPLETES_WITHIN_MS = 60_000;

const fixture = useSystem({
  name: NS,
  agentToken: TOKENS.agent,
  users: [{ name: 'olga', token: TOKENS.ops, roles: ['ops'] }],
  kinds: ['configMap'],
  read: ['ops'],
  write: ['ops'],
});

function configMaps(label: string, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${label}-${String(i).padStart(3, '0')}`, namespace: NS, labels: { drain: label } },
    data: { index: String(i), filler: FILLER },
  }));
}

function deployOf(label: string, count: number) {
  return [
    { deployManifest: { account: NS, moniker: { app: 'drain' }, manifests: configMaps(label, count) } },
  ];
}

async function namesLabelled(label: string): Promise<string[]> {
  const listed = await fixture.cluster.request(
    'GET',
    `/api/v1/namespaces/${NS}/configmaps?labelSelector=drain%3D${label}`,
  );
  const items = (listed.json as { items: Array<{ metadata: { name: string } }> }).items;
  return items.map((item) => item.metadata.name).sort();
}

/** The agent's in-flight operations of a type (its health server's `/operations`). */
async function inFlight(type: string): Promise<number> {
  const response = await fetch(`${fixture.system.agentUrl}/operations`).catch(() => undefined);
  if (response === undefined) return 0;
  const body = (await response.json()) as { inFlight: Array<{ type: string }> };
  return body.inFlight.filter((operation) => operation.type === type).length;
}

async function until(what: string, done: () => Promise<boolean> | boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what} not within ${timeoutMs} ms`);
    await sleep(20);
  }
}

/**
 * A POST /ops whose body is sent in two parts: the first now, the rest when `finish` is called.
 * Resolves with the answer, status, headers and body.
 */
function halfSentPost(url: string, path: string, body: unknown) {
  const bytes = Buffer.from(JSON.stringify(body));
  const target = new URL(path, url);
  let finish = () => {};
  const answer = new Promise<{ status: number; connection: string | undefined; body: { id?: string } }>(
    (resolve, reject) => {
      const req = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: 'POST',
          path: `${target.pathname}${target.search}`,
          headers: {
            'content-type': 'application/json',
            'content-length': bytes.length,
            authorization: `Bearer ${TOKENS.ops}`,
          },
        },
        (res: IncomingMessage) => {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString();
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              connection: res.headers.connection,
              body: JSON.parse(text),
            }),
          );
        },
      );
      req.on('error', reject);
      req.write(bytes.subarray(0, 1));
      finish = () => req.end(bytes.subarray(1));
    },
  );
  return { answer, finish: () => finish() };
}

/** The phases cloudctl's log says it stopped, in the order it stopped them. */
function stoppedPhases(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string; phase?: string })
    .filter((line) => line.msg === 'stopped')
    .map((line) => line.phase ?? '');
}

describe('cloudctl stopped with SIGTERM while tasks run and a request is in flight', () => {
  it('answers the request, stops in order, exits 0, and completes every acknowledged task after a restart', async () => {
    const { system } = fixture;
    const api = apiClient(system.url, TOKENS.ops);
    const acknowledged = new Map<string, string>();
    for (let i = 0; i < TASKS; i++) {
      const label = `running-${i}`;
      const started = await api.post(`/ops?clientRequestId=sigterm-${label}`, deployOf(label, OBJECTS));
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      acknowledged.set(label, started.body.id);
    }
    await until('a deploy running on the agent', async () => (await inFlight('deploy')) > 0);

    const cloudctl = system.cloudctl;
    const inFlightPost = halfSentPost(
      system.url,
      '/ops?clientRequestId=sigterm-in-flight',
      deployOf('in-flight', 5),
    );
    // The request is in flight (headers and a byte of its body are in) before the signal.
    await sleep(200);
    const exited = once(cloudctl.child, 'exit');
    const signalledAt = Date.now();
    cloudctl.child.kill('SIGTERM');
    await until('cloudctl to begin stopping', () => cloudctl.output().includes('cloudctl stopping'));
    inFlightPost.finish();

    const answered = await inFlightPost.answer;
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    // Answered by a server that is closing: it asks the client not to reuse the connection.
    expect(answered.connection).toBe('close');
    acknowledged.set('in-flight', answered.body.id ?? '');

    await exited;
    const stoppedInMs = Date.now() - signalledAt;
    expect(cloudctl.child.exitCode, cloudctl.output()).toBe(0);
    expect(stoppedInMs).toBeLessThan(EXITS_WITHIN_MS);
    expect(stoppedPhases(cloudctl.output())).toEqual([
      'resume',
      'http',
      'services',
      'grpc',
      'replicas',
      'store',
    ]);
    console.info(`cloudctl stopped ${stoppedInMs} ms after SIGTERM, with deploys running`);

    await system.serveCloudctl();
    // Tasks were stopped where they were (a drain that waited for their operations would have let
    // them finish), and this run carries them on.
    await until('the restarted cloudctl to carry on the tasks the stop left unfinished', () =>
      system.cloudctl.output().includes('carrying on tasks left unfinished by the last run'),
    );
    for (const [label, id] of acknowledged) {
      const done = await taskDone(api, id, COMPLETES_WITHIN_MS);
      expect(done.status, JSON.stringify(done.history)).toMatchObject({ completed: true, failed: false });
      const count = label === 'in-flight' ? 5 : OBJECTS;
      // Each ConfigMap once, as its first version.
      expect(await namesLabelled(label)).toEqual(
        configMaps(label, count).map((m) => `${m.metadata.name}-v000`),
      );
    }
  }, 240_000);
});
