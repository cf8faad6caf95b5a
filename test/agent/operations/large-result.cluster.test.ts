// An operation whose result is too large for one message (gRPC's 4 MiB, which cloudctl keeps): a list
// of six ~900 KB ConfigMaps. Sent as it was, the result was refused at every attempt and the
// operation waited for its timeout with no word of why; now it fails at once with RESULT_TOO_LARGE,
// saying what to do. The agent in-process, the real control plane and cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import {
  createConfigMap,
  createNamespace,
  deleteObject,
  msUntilReady,
  type RunningAgent,
  startAgent,
} from '../watch/watch-fixture.ts';

const NS = 'large-result';
let cp: TestControlPlane;
let admin: ApiClient;
let agent: RunningAgent | undefined;

beforeAll(async () => {
  admin = sharedClusterClient();
  cp = await startTestControlPlane();
  await createNamespace(admin, NS, []);
  for (let i = 0; i < 6; i++) await createConfigMap(admin, NS, `big-${i}`, { text: 'x'.repeat(900_000) });
}, 60_000);

afterAll(async () => {
  await agent?.stop();
  await cp?.close();
  await deleteObject(admin, `/api/v1/namespaces/${NS}`);
  await admin?.close();
});

describe('an operation result over 4 MiB', () => {
  it('fails at once with RESULT_TOO_LARGE and what to do, while a small list of the same account succeeds', async () => {
    agent = await startAgent(
      cp,
      {
        orchestrator: {
          accounts: [
            {
              name: 'large',
              orchConfigFile: sharedCluster().kubeconfigPath,
              namespaces: [NS],
              kinds: ['secret'],
            },
          ],
        },
      },
      'info',
    );
    await msUntilReady(agent, 20_000);
    const started = performance.now();
    const outcome = await cp.plane.operations.execute({
      account: 'large',
      type: 'list',
      payload: { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS },
    });
    expect(outcome).toMatchObject({
      outcome: 'failed',
      error: {
        code: 'RESULT_TOO_LARGE',
        message: expect.stringMatching(/^the result is 5\.\d MiB of JSON, more than the 3\.5 MiB/),
      },
    });
    expect(performance.now() - started).toBeLessThan(5000);
    const small = await cp.plane.operations.execute({
      account: 'large',
      type: 'list',
      payload: { apiVersion: 'v1', kind: 'Secret', namespace: NS },
    });
    expect(small).toMatchObject({ outcome: 'succeeded' });
  }, 60_000);
});
