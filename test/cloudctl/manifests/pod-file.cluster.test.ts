// GET /applications/{app}/orchestrator/pods/{account}/{namespace}/{pod}/{fileName}, as Orca calls it
// for the pod of a Job that succeeded: the properties the container named `fileName` printed in its
// log, parsed as a Job's. End to end: `cloudctl serve` and `orch-agent run` as processes, and a pod on
// the shared cluster's fake-kubelet node, whose containers "print" what this file writes on them
// (test/cluster/fake-kubelet.ts), read through the real API server's pods/log.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { podLogAnnotations, sharedCluster } from '../../cluster/index.ts';
import { useSystem } from '../../support/system-fixture.ts';
import { type ApiAnswer, apiClient } from '../http-client.ts';

const NS = 'pod-file-e2e';
const TOKENS = {
  agent: 'agent-token-pod-file-7e21',
  dev: 'dev-token-pod-file-3a9d',
  guest: 'guest-token-pod-file-c460',
};

const PROPS_LOG = [
  'publishing results',
  'SPINNAKER_PROPERTY_IMAGE=registry.example/app:4.1',
  '  SPINNAKER_PROPERTY_Replicas = 3  ',
  'SPINNAKER_CONFIG_JSON={"tests": 212, "suites": ["unit", "e2e"]}',
  '',
].join('\n');
const MAIN_LOG = 'build finished in 41s\n';

const fixture = useSystem({
  name: NS,
  agentToken: TOKENS.agent,
  users: [
    { name: 'dave', token: TOKENS.dev, roles: ['dev'] },
    { name: 'gina', token: TOKENS.guest, roles: ['guests'] },
  ],
  kinds: ['pod'],
  read: ['dev'],
  write: ['dev'],
});
const dev = () => apiClient(fixture.system.url, TOKENS.dev);
const filePath = (pod: string, file: string) =>
  `/applications/ci/orchestrator/pods/${NS}/${NS}/${pod}/${file}`;

async function until(ask: () => Promise<ApiAnswer>, done: (a: ApiAnswer) => boolean): Promise<ApiAnswer> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await ask();
    if (done(answer) || Date.now() > deadline) return answer;
    await sleep(250);
  }
}

describe("a pod's published properties", () => {
  it("answers the properties the named container printed, parsed as a Job's, and {} for a container that printed none", async () => {
    const created = await fixture.cluster.request('POST', `/api/v1/namespaces/${NS}/pods`, {
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'build-x7k2p',
          annotations: podLogAnnotations({ main: MAIN_LOG, props: PROPS_LOG }),
        },
        spec: {
          nodeName: sharedCluster().fakeKubelet.nodeName,
          restartPolicy: 'Never',
          containers: [
            { name: 'main', image: 'registry.example/build:1' },
            { name: 'props', image: 'registry.example/props:1' },
          ],
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    const answer = await until(
      () => dev().get(filePath('build-x7k2p', 'props')),
      (a) => a.status === 200,
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({
      image: 'registry.example/app:4.1',
      replicas: '3',
      tests: 212,
      suites: ['unit', 'e2e'],
    });
    const none = await dev().get(filePath('build-x7k2p', 'main'));
    expect(none.status).toBe(200);
    expect(none.body).toEqual({});
  });

  it('answers 404 naming a missing pod or container, and 403 without READ on the account', async () => {
    const noPod = await dev().get(filePath('build-gone', 'props'));
    expect(noPod.status).toBe(404);
    expect(noPod.body.message).toBe(`no pod build-gone in ${NS}/${NS}`);
    const noContainer = await dev().get(filePath('build-x7k2p', 'results.properties'));
    expect(noContainer.status).toBe(404);
    expect(noContainer.body.message).toBe('pod build-x7k2p has no container results.properties');
    const guest = apiClient(fixture.system.url, TOKENS.guest);
    expect((await guest.get(filePath('build-x7k2p', 'props'))).status).toBe(403);
  });

  it('answers 503 while no agent serves the account: the store holds no logs', async () => {
    await fixture.system.agent?.stop('SIGTERM');
    const away = await until(
      () => dev().get(filePath('build-x7k2p', 'props')),
      (a) => a.status === 503,
    );
    expect(away.status).toBe(503);
    expect(away.body.code).toBe('AGENT_UNAVAILABLE');
  });
});
