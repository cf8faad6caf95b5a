// orchestrator.accounts[].customResourceDefinitions[].scope (spec: `Cluster` or `Namespaced`, default
// Namespaced) with onlyNamespacedResources: true, where the listed CRDs are "sent to the control plane
// as synthetic resources that are not queried or watched". Neither CRD exists in the cluster: what
// the control plane stores comes from the config alone, each entry with its own scope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import {
  createNamespace,
  deleteObject,
  msUntilStored,
  type RunningAgent,
  startAgent,
  stored,
} from './watch-fixture.ts';

const NS = 'crd-scope';
const GROUP = 'crd-scope.orch.example';
let cp: TestControlPlane;
let admin: ApiClient;
let agent: RunningAgent;

beforeAll(async () => {
  admin = sharedClusterClient();
  cp = await startTestControlPlane();
  await createNamespace(admin, NS, ['seen']);
  agent = await startAgent(cp, {
    orchestrator: {
      accounts: [
        {
          name: 'scoped',
          orchConfigFile: sharedCluster().kubeconfigPath,
          namespaces: [NS],
          kinds: ['configMap'],
          onlyNamespacedResources: true,
          customResourceDefinitions: [
            { kind: `Gadget.${GROUP}`, scope: 'Cluster' },
            { kind: `Widget.${GROUP}` },
            { kind: `Sprocket.${GROUP}`, scope: 'Namespaced' },
          ],
        },
      ],
    },
  });
});

afterAll(async () => {
  await agent?.stop();
  await cp?.close();
  await deleteObject(admin, `/api/v1/namespaces/${NS}`);
  await admin?.close();
});

describe('customResourceDefinitions[].scope', () => {
  it('each listed CRD is stored as a synthetic CustomResourceDefinition carrying its scope (Namespaced by default)', async () => {
    await msUntilStored(cp, 'scoped', 'ConfigMap', [`${NS}/seen`], 20_000);
    await msUntilStored(
      cp,
      'scoped',
      'CustomResourceDefinition',
      [`/gadgets.${GROUP}`, `/sprockets.${GROUP}`, `/widgets.${GROUP}`],
      20_000,
    );
    const scopeOf = async (name: string) => {
      const crd = await stored(cp, 'scoped', 'CustomResourceDefinition', '', `${name}.${GROUP}`);
      return crd?.body;
    };
    expect(await scopeOf('gadgets')).toMatchObject({
      kind: 'CustomResourceDefinition',
      spec: { group: GROUP, scope: 'Cluster', names: { kind: 'Gadget', plural: 'gadgets' } },
    });
    expect(await scopeOf('widgets')).toMatchObject({ spec: { group: GROUP, scope: 'Namespaced' } });
    expect(await scopeOf('sprockets')).toMatchObject({ spec: { group: GROUP, scope: 'Namespaced' } });
  });

  it('the synthetic CRDs are not watched: the account watches only its namespaced kinds', () => {
    const scopes = agent.runtime.watches.list().filter((w) => w.account === 'scoped');
    expect(scopes.map((w) => `${w.kind} ${w.namespace}`)).toEqual([`ConfigMap ${NS}`]);
  });
});
