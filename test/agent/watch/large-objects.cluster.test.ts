// Large objects reach the control plane: ConfigMaps may hold up to 1 MiB, and twelve of ~900 KB in one
// namespace, listed together, are ~11 MB — past the 4 MiB message limit cloudctl's gRPC server keeps
// if they went up as one batch (cloudctl would refuse it and the agent would send it again forever). Batches stop at
// ~2 MiB of object JSON in UTF-8 (watch-manager.ts); the text here is partly multi-byte, so a bound
// counted in characters would still overflow. cloudctl's commits are held until the whole list is in
// the agent's buffer, so that the uplink's next batch could take all of it. Real cluster, real
// control plane, the agent in-process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import {
  createConfigMap,
  createNamespace,
  deleteObject,
  holdCommits,
  msUntil,
  msUntilReady,
  msUntilStored,
  type RunningAgent,
  startAgent,
  stored,
} from './watch-fixture.ts';

const NS = 'large-objects';
const COUNT = 12;
/** ~900 KB in UTF-8: 150k ASCII characters and 250k three-byte ones. */
const text = (i: number) => `${String(i).repeat(150_000).slice(0, 150_000)}${'語'.repeat(250_000)}`;
const names = Array.from({ length: COUNT }, (_, i) => `big-${i}`);
let cp: TestControlPlane;
let admin: ApiClient;
let agent: RunningAgent | undefined;

beforeAll(async () => {
  admin = sharedClusterClient();
  cp = await startTestControlPlane();
  await createNamespace(admin, NS, []);
  for (const [i, name] of names.entries()) await createConfigMap(admin, NS, name, { text: text(i) });
}, 60_000);

afterAll(async () => {
  await agent?.stop();
  await cp?.close();
  await deleteObject(admin, `/api/v1/namespaces/${NS}`);
  await admin?.close();
});

describe('large objects', () => {
  it('twelve ConfigMaps of ~900 KB each (~11 MB listed at once) are all stored, whole', async () => {
    expect(Buffer.byteLength(text(0))).toBeGreaterThan(890_000);
    const gate = holdCommits(cp.plane.store.cache);
    agent = await startAgent(cp, {
      orchestrator: {
        accounts: [
          {
            name: 'large',
            orchConfigFile: sharedCluster().kubeconfigPath,
            namespaces: [NS],
            kinds: ['configMap'],
          },
        ],
      },
    });
    const running = agent;
    await msUntil(
      'the whole list in the buffer',
      () => running.runtime.watches.list().some((w) => w.account === 'large' && w.state === 'watching'),
      30_000,
    );
    gate.open();
    await msUntilReady(agent, 30_000);
    await msUntilStored(
      cp,
      'large',
      'ConfigMap',
      names.map((name) => `${NS}/${name}`),
      30_000,
    );
    for (const [i, name] of names.entries()) {
      const body = (await stored(cp, 'large', 'ConfigMap', NS, name))?.body as
        | { data?: { text?: string } }
        | undefined;
      expect(body?.data?.text === text(i), name).toBe(true);
    }
  }, 90_000);
});
