// Issue 15, the agent's rules for dynamic accounts, against the shared cluster and a control plane
// the test scripts: the static definition wins over an assignment and a delete; secret references in
// a definition resolve on the agent and never come back in clear; the cache directive decides whether
// an account streams (operations run either way) and switching it starts the watches; an assignment
// re-sent after a reconnect keeps the running account without a second list or watch.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRecord } from '../../../src/lib/is-record.ts';
import { freePort } from '../../cluster/free-port.ts';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { writeConfig } from '../config/config-fixture.ts';
import { type InProcessAgent, msUntil, startInProcessAgent } from '../in-process-agent.ts';
import {
  createConfigMap,
  createNamespace,
  deleteObject,
  unreachableKubeconfig,
} from '../watch/watch-fixture.ts';
import { assignment, ScriptedControlPlane } from './scripted-control-plane.ts';

const NS_STATIC = 'dyn-rules-static';
const NS_SECRET = 'dyn-rules-secret';
const NS_OPS = 'dyn-rules-ops';
const NS_RE = 'dyn-rules-re';
/** The context name the secret kubeconfig uses, given to the agent only through an env reference. */
const SECRET_CONTEXT = 'ctx-5ecret-b7e1';

let admin: ApiClient;
let cp: ScriptedControlPlane;
let agent: InProcessAgent;
let healthPort: number;
let token: string;
let plainKubeconfig: string;
let secretsFile: string;

const accountsView = async (): Promise<unknown> =>
  (await fetch(`http://127.0.0.1:${healthPort}/accounts`)).json();
/** One account of the admin view's page. */
const viewed = async (name: string): Promise<Record<string, unknown> | undefined> => {
  const view = await accountsView();
  const items = isRecord(view) && Array.isArray(view.items) ? view.items : [];
  return items.find((item): item is Record<string, unknown> => isRecord(item) && item.name === name);
};
const watchedScopes = (account: string) =>
  agent.runtime.watches
    .list()
    .filter((w) => w.account === account)
    .map((w) => `${w.kind}/${w.namespace}`)
    .sort();
const eventNames = (account: string) => cp.events(account).map((e) => `${e.namespace}/${e.name}`);

beforeAll(async () => {
  admin = sharedClusterClient();
  plainKubeconfig = sharedCluster().kubeconfigPath;
  const kubeconfig: unknown = JSON.parse(readFileSync(plainKubeconfig, 'utf8'));
  if (!isRecord(kubeconfig) || !Array.isArray(kubeconfig.users) || !Array.isArray(kubeconfig.contexts))
    throw new Error('unexpected kubeconfig');
  const user: unknown = kubeconfig.users[0];
  if (!isRecord(user) || !isRecord(user.user) || typeof user.user.token !== 'string')
    throw new Error('the shared cluster kubeconfig has no token');
  token = user.user.token;
  // The same cluster under a context name that only the env reference gives away.
  const renamed = {
    ...kubeconfig,
    contexts: kubeconfig.contexts.map((c: unknown) => (isRecord(c) ? { ...c, name: SECRET_CONTEXT } : c)),
    'current-context': 'none-of-these',
  };
  secretsFile = writeConfig(JSON.stringify({ kubeconfig: JSON.stringify(renamed) }), 'secrets.yaml');

  await Promise.all([
    createNamespace(admin, NS_STATIC, ['static-1']),
    createNamespace(admin, NS_SECRET, ['secret-1']),
    createNamespace(admin, NS_OPS),
    createNamespace(admin, NS_RE, ['re-1']),
  ]);
  cp = await ScriptedControlPlane.start();
  cp.registeredCache = [{ account: 'static-quiet', enabled: false, kinds: [], omitKinds: [] }];
  healthPort = await freePort();
  agent = await startInProcessAgent(
    {
      variant: 'B',
      logging: { format: 'json', level: 'debug' },
      server: { host: '127.0.0.1', port: healthPort },
      cloudctl: { grpc: cp.address, insecure: true },
      dynamicAccounts: { enabled: true },
      orchestrator: {
        accounts: [
          {
            name: 'static-a',
            orchConfigFile: plainKubeconfig,
            namespaces: [NS_STATIC],
            kinds: ['configMap'],
          },
          {
            name: 'static-quiet',
            orchConfigFile: plainKubeconfig,
            namespaces: [NS_STATIC],
            kinds: ['configMap'],
          },
        ],
      },
    },
    { env: { DYN_CONTEXT: SECRET_CONTEXT } },
  );
  await msUntil(() => eventNames('static-a').includes(`${NS_STATIC}/static-1`), 30_000, 'static-a streams');
});

afterAll(async () => {
  await agent?.stop();
  await cp?.close();
  await Promise.all(
    [NS_STATIC, NS_SECRET, NS_OPS, NS_RE].map((ns) => deleteObject(admin, `/api/v1/namespaces/${ns}`)),
  );
  await admin?.close();
});

describe("the agent's static definition wins", () => {
  it('hello names each account with its source and caching', () => {
    expect(
      cp.hellos[0]?.accounts.map((a) => ({ name: a.name, source: a.source, caching: a.caching })),
    ).toEqual([
      { name: 'static-a', source: 'STATIC_AGENT_CONFIG', caching: true },
      { name: 'static-quiet', source: 'STATIC_AGENT_CONFIG', caching: true },
    ]);
  });

  it('an assignment of a static name is REFUSED and the static account keeps running untouched', async () => {
    const snapshots = cp.snapshots('static-a');
    const scopes = watchedScopes('static-a');
    cp.assign([{ name: 'static-a', definition: { orchConfigFile: await unreachableKubeconfig() } }]);
    const refused = await cp.status('static-a', (s) => s.state === 'REFUSED');
    expect(refused.message).toBe(
      "account 'static-a' is defined in the agent's config file (orchestrator.accounts): the agent's own definition wins over the control plane's, and the static account keeps running unchanged",
    );
    expect(agent.runtime.accounts.status('static-a')).toMatchObject({
      state: 'ACTIVE',
      source: 'static-agent-config',
      cluster: plainKubeconfig,
    });
    await createConfigMap(admin, NS_STATIC, 'after-refusal');
    await msUntil(
      () => eventNames('static-a').includes(`${NS_STATIC}/after-refusal`),
      20_000,
      'static-a event',
    );
    expect(watchedScopes('static-a')).toEqual(scopes);
    expect(cp.snapshots('static-a')).toBe(snapshots);
  });

  it('delete_accounts never removes a static account; the agent logs why at INFO', async () => {
    cp.send({ deleteAccounts: { names: ['static-a'] } });
    await msUntil(
      () => agent.logs.some((l) => l.account === 'static-a' && /delete_accounts ignored/.test(l.msg)),
      20_000,
      'the ignored delete logged',
    );
    const line = agent.logs.find((l) => l.account === 'static-a' && /delete_accounts ignored/.test(l.msg));
    expect(line?.level).toBe(30); // pino's INFO
    expect(line?.msg).toBe(
      "delete_accounts ignored for a static account: the agent's config file defines it, and only a change of that file removes it",
    );
    await createConfigMap(admin, NS_STATIC, 'after-delete');
    await msUntil(
      () => eventNames('static-a').includes(`${NS_STATIC}/after-delete`),
      20_000,
      'static-a event',
    );
    expect(agent.runtime.accounts.status('static-a')?.state).toBe('ACTIVE');
  });
});

describe('secret references in a dynamic definition', () => {
  it('encryptedFile: and encrypted: resolve on the agent with the config file engines', async () => {
    cp.assign([
      {
        name: 'secret-dyn',
        definition: {
          orchConfigFile: `encryptedFile:file!f:${secretsFile}!k:kubeconfig`,
          context: 'encrypted:env!n:DYN_CONTEXT',
          namespaces: [NS_SECRET],
          kinds: ['configMap'],
        },
      },
    ]);
    await cp.status('secret-dyn', (s) => s.state === 'ACTIVE');
    await msUntil(
      () => eventNames('secret-dyn').includes(`${NS_SECRET}/secret-1`),
      20_000,
      'secret-dyn streams',
    );
    // The admin view shows the references, not the file written for them nor the context's value.
    expect(agent.runtime.accounts.status('secret-dyn')?.cluster).toBe(
      `encryptedFile:file!f:${secretsFile}!k:kubeconfig (context encrypted:env!n:DYN_CONTEXT)`,
    );
  });

  it("a reference that does not resolve is FAILED with the engine's message", async () => {
    cp.assign([
      {
        name: 'secret-missing',
        definition: { orchConfigFile: plainKubeconfig, context: 'encrypted:env!n:DYN_NOT_SET' },
      },
    ]);
    const failed = await cp.status('secret-missing', () => true);
    expect(failed).toMatchObject({
      state: 'FAILED',
      message: 'invalid account definition: context: environment variable DYN_NOT_SET is not set',
    });
  });
});

describe('the cache directive', () => {
  it("registered's directive keeps a static account from being cached from the start", async () => {
    expect(agent.runtime.accounts.status('static-quiet')).toMatchObject({ state: 'ACTIVE', caching: false });
    expect(watchedScopes('static-quiet')).toEqual([]);
    expect(cp.snapshots('static-quiet')).toBe(0);
    expect(cp.events('static-quiet')).toEqual([]);
  });

  it('caching off: no watches and no resource events, while an operation on the account succeeds', async () => {
    cp.assign([
      {
        name: 'ops-only',
        definition: { orchConfigFile: plainKubeconfig, namespaces: [NS_OPS], kinds: ['configMap'] },
        cache: { enabled: false, kinds: [], omitKinds: [] },
      },
    ]);
    await cp.status('ops-only', (s) => s.state === 'ACTIVE');
    cp.send({
      operation: {
        id: 'op-ops-only-1',
        type: 'deploy',
        account: 'ops-only',
        payload: Buffer.from(
          JSON.stringify({
            manifests: [
              { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'made-by-op', namespace: NS_OPS } },
            ],
          }),
        ),
      },
    });
    await msUntil(() => cp.results.some((r) => r.operationId === 'op-ops-only-1'), 30_000, 'the result');
    expect(cp.results.find((r) => r.operationId === 'op-ops-only-1')?.outcome).toBe('SUCCEEDED');
    expect((await admin.get(`/api/v1/namespaces/${NS_OPS}/configmaps/made-by-op`)).status).toBe(200);
    // An event of another account sent after the operation: the uplink has nothing older to deliver.
    await createConfigMap(admin, NS_STATIC, 'after-op');
    await msUntil(() => eventNames('static-a').includes(`${NS_STATIC}/after-op`), 20_000, 'static-a event');
    expect(cp.events('ops-only')).toEqual([]);
    expect(cp.snapshots('ops-only')).toBe(0);
    expect(watchedScopes('ops-only')).toEqual([]);
    expect(agent.runtime.accounts.status('ops-only')?.caching).toBe(false);
    expect(await viewed('ops-only')).toMatchObject({
      state: 'ACTIVE',
      caching: false,
    });
    // Not waited for by readiness: nothing of it is to be synced.
    expect((await fetch(`http://127.0.0.1:${healthPort}/ready`)).status).toBe(200);
  });

  it('cache_directives switching caching on starts the watches; kinds in a directive replace the account’s own', async () => {
    cp.send({
      cacheDirectives: { directives: [{ account: 'ops-only', enabled: true, kinds: [], omitKinds: [] }] },
    });
    await msUntil(() => eventNames('ops-only').includes(`${NS_OPS}/made-by-op`), 20_000, 'ops-only streams');
    expect(watchedScopes('ops-only')).toEqual([`ConfigMap/${NS_OPS}`]);
    expect((await viewed('ops-only'))?.caching).toBe(true);

    cp.send({
      cacheDirectives: {
        directives: [{ account: 'ops-only', enabled: true, kinds: ['secret'], omitKinds: [] }],
      },
    });
    await msUntil(
      () => watchedScopes('ops-only').join() === `Secret/${NS_OPS}`,
      20_000,
      'ops-only watches Secrets',
    );

    cp.send({
      cacheDirectives: { directives: [{ account: 'ops-only', enabled: false, kinds: [], omitKinds: [] }] },
    });
    await msUntil(() => watchedScopes('ops-only').length === 0, 20_000, 'ops-only watches stopped');
    expect(agent.runtime.accounts.status('ops-only')?.caching).toBe(false);
  });
});

describe('assigned again', () => {
  const dyn = { orchConfigFile: '', namespaces: [NS_RE], kinds: ['configMap'] };

  it('the same definition keeps the running account: no second list, no second watch', async () => {
    dyn.orchConfigFile = plainKubeconfig;
    cp.assign([{ name: 'dyn', definition: dyn }]);
    await cp.status('dyn', (s) => s.state === 'ACTIVE');
    await msUntil(() => eventNames('dyn').includes(`${NS_RE}/re-1`), 20_000, 'dyn streams');
    const snapshots = cp.snapshots('dyn');
    const statuses = cp.statuses.filter((s) => s.account === 'dyn').length;
    cp.assign([{ name: 'dyn', definition: dyn }]);
    await msUntil(
      () => cp.statuses.filter((s) => s.account === 'dyn').length > statuses,
      20_000,
      'dyn reported again',
    );
    expect(cp.statuses.at(-1)).toMatchObject({ account: 'dyn', state: 'ACTIVE' });
    expect(watchedScopes('dyn')).toEqual([`ConfigMap/${NS_RE}`]);
    expect(cp.snapshots('dyn')).toBe(snapshots);
  });

  it('after a reconnect, the re-sent assignment keeps the account and its watches are not doubled; hello lists the dynamic accounts', async () => {
    const sessions = cp.sessions;
    cp.registeredCache = [
      { account: 'static-a', enabled: true, kinds: [], omitKinds: [] },
      { account: 'static-quiet', enabled: false, kinds: [], omitKinds: [] },
      { account: 'dyn', enabled: true, kinds: [], omitKinds: [] },
      { account: 'ops-only', enabled: false, kinds: [], omitKinds: [] },
    ];
    cp.onRegistered = () => [{ addAccounts: { accounts: [assignment({ name: 'dyn', definition: dyn })] } }];
    const kept = () =>
      agent.logs.filter((l) => l.account === 'dyn' && /same definition; kept/.test(l.msg)).length;
    const keptBefore = kept();
    const replacedBefore = agent.logs.filter((l) => l.account === 'dyn' && l.replaces === true).length;
    cp.endSession();
    await msUntil(() => cp.sessions > sessions, 30_000, 'a new session');
    const hello = cp.hellos.at(-1);
    expect(
      hello?.accounts
        .map((a) => ({ name: a.name, source: a.source, caching: a.caching }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    ).toEqual([
      { name: 'dyn', source: 'CLOUDCTL', caching: true },
      { name: 'ops-only', source: 'CLOUDCTL', caching: false },
      { name: 'secret-dyn', source: 'CLOUDCTL', caching: true },
      { name: 'static-a', source: 'STATIC_AGENT_CONFIG', caching: true },
      { name: 'static-quiet', source: 'STATIC_AGENT_CONFIG', caching: false },
    ]);
    await msUntil(() => kept() > keptBefore, 20_000, 'the re-sent assignment kept');
    await createConfigMap(admin, NS_RE, 're-after-reconnect');
    await msUntil(() => eventNames('dyn').includes(`${NS_RE}/re-after-reconnect`), 20_000, 'dyn streams on');
    expect(agent.logs.filter((l) => l.account === 'dyn' && l.replaces === true).length).toBe(replacedBefore);
    // One watch per scope, as before the reconnect; the operations-only account still has none.
    expect(watchedScopes('dyn')).toEqual([`ConfigMap/${NS_RE}`]);
    expect(watchedScopes('ops-only')).toEqual([]);
    expect(cp.snapshots('static-quiet')).toBe(0);
    expect(agent.runtime.accounts.status('dyn')).toMatchObject({ state: 'ACTIVE', source: 'cloudctl' });
  });

  it('a changed definition replaces the account', async () => {
    cp.assign([{ name: 'dyn', definition: { ...dyn, namespaces: [NS_RE, NS_OPS] } }]);
    await msUntil(
      () => watchedScopes('dyn').join() === [`ConfigMap/${NS_OPS}`, `ConfigMap/${NS_RE}`].join(),
      20_000,
      'dyn watches both namespaces',
    );
    await msUntil(
      () => eventNames('dyn').includes(`${NS_OPS}/made-by-op`),
      20_000,
      'dyn lists the new namespace',
    );
  });
});

describe('a directive in registered after a reconnect', () => {
  it('caching off in the new session: the account is not listed again before the directive applies', async () => {
    const snapshots = cp.snapshots('static-a');
    const sessions = cp.sessions;
    cp.registeredCache = cp.registeredCache.map((d) =>
      d.account === 'static-a' ? { ...d, enabled: false } : d,
    );
    cp.onRegistered = () => [];
    cp.endSession();
    await msUntil(() => cp.sessions > sessions, 30_000, 'a new session');
    await msUntil(() => watchedScopes('static-a').length === 0, 20_000, 'static-a watches stopped');
    // An event of another account after the switch: the uplink has nothing older to deliver.
    await createConfigMap(admin, NS_RE, 're-after-static-off');
    await msUntil(() => eventNames('dyn').includes(`${NS_RE}/re-after-static-off`), 20_000, 'dyn event');
    expect(cp.snapshots('static-a')).toBe(snapshots);
    expect(agent.runtime.accounts.status('static-a')).toMatchObject({ state: 'ACTIVE', caching: false });
  });
});

describe('no resolved secret leaves the agent', () => {
  it('in account_status, hello, the logs and the admin view', async () => {
    const view = JSON.stringify(await accountsView());
    const places = {
      statuses: JSON.stringify(cp.statuses),
      hellos: JSON.stringify(cp.hellos),
      logs: JSON.stringify(agent.logs),
      accounts: view,
    };
    expect(view).toContain('secret-dyn');
    expect(places.hellos).toContain('secret-dyn');
    for (const [place, text] of Object.entries(places)) {
      expect(text.includes(token), `the cluster token in ${place}`).toBe(false);
      expect(text.includes(SECRET_CONTEXT), `the secret context name in ${place}`).toBe(false);
      expect(/orch-agent-secrets-/.test(text), `a secret file path in ${place}`).toBe(false);
    }
  });
});
