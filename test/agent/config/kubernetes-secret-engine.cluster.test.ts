import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatIssue, loadConfig } from '../../../src/agent/config/index.ts';
import { KubeHttp, resolveKubeConfig } from '../../../src/kube/index.ts';
import { freePort } from '../../cluster/free-port.ts';
import {
  type ApiClient,
  createServiceAccountToken,
  sharedCluster,
  sharedClusterClient,
} from '../../cluster/index.ts';
import { kubeconfig } from '../../cluster/kubeconfig.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { msUntil, startInProcessAgent } from '../in-process-agent.ts';
import { writeConfig } from './config-fixture.ts';

// Two namespaces: the agent's own, and one its service account may not read Secrets in.
const suffix = Math.random().toString(36).slice(2, 8);
const NS = `k8s-secrets-${suffix}`;
const OTHER = `k8s-secrets-other-${suffix}`;
const TOKEN = `cloudctl-token-${suffix}-value`;
let admin: ApiClient;
let accountKubeconfig: string;

async function create(path: string, body: Record<string, unknown>) {
  const response = await admin.request('POST', path, { body });
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${response.text}`);
}

const secret = (name: string, data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});

/** The files a pod's service account mount holds, for the agent's identity `agent` in NS. */
async function serviceAccountRoot(): Promise<string> {
  const root = tempDir();
  const dir = join(root, 'var/run/secrets/kubernetes.io/serviceaccount');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'token'), await createServiceAccountToken(admin, NS, 'agent'));
  writeFileSync(join(dir, 'ca.crt'), sharedCluster().ca);
  writeFileSync(join(dir, 'namespace'), NS);
  return root;
}

function inClusterEnv(): NodeJS.ProcessEnv {
  const server = new URL(sharedCluster().server);
  return { KUBERNETES_SERVICE_HOST: server.hostname, KUBERNETES_SERVICE_PORT: server.port };
}

beforeAll(async () => {
  admin = sharedClusterClient();
  const shared = sharedCluster();
  for (const name of [NS, OTHER])
    await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  accountKubeconfig = kubeconfig({
    server: shared.server,
    ca: shared.ca,
    token: shared.adminToken,
    name: 'acct',
  });
  await create(
    `/api/v1/namespaces/${NS}/secrets`,
    secret('agent-secrets', { kubeconfig: accountKubeconfig, token: TOKEN }),
  );
  await create(`/api/v1/namespaces/${OTHER}/secrets`, secret('elsewhere', { token: TOKEN }));
  // The agent's service account may read Secrets in its own namespace only.
  await create(`/api/v1/namespaces/${NS}/serviceaccounts`, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'agent' },
  });
  await create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'read-secrets' },
    rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
  });
  await create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'agent-reads-secrets' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-secrets' },
    subjects: [{ kind: 'ServiceAccount', name: 'agent', namespace: NS }],
  });
});

afterAll(async () => {
  for (const name of [NS, OTHER]) await admin?.request('DELETE', `/api/v1/namespaces/${name}`);
  await admin?.close();
});

describe('the k8s secrets engine', () => {
  it('gives an account its kubeconfig from a Secret, read with the local kubeconfig, and the account works', async () => {
    const file = writeConfig(
      [
        'cloudctl:',
        '  auth:',
        `    token: encrypted:k8s!n:agent-secrets!k:token!ns:${NS}`,
        'orchestrator:',
        '  accounts:',
        '    - name: from-secret',
        `      orchConfigFile: encryptedFile:k8s!n:agent-secrets!k:kubeconfig!ns:${NS}`,
        '',
      ].join('\n'),
    );
    const loaded = await loadConfig(file, {
      fetchSecrets: true,
      env: { KUBECONFIG: sharedCluster().kubeconfigPath },
    });
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    try {
      expect(loaded.config.cloudctl.auth.token).toBe(TOKEN);
      const account = loaded.config.orchestrator.accounts[0];
      if (account === undefined) throw new Error('no account');
      const path = account.orchConfigFile ?? '';
      expect(readFileSync(path, 'utf8')).toBe(accountKubeconfig);
      const { kubeConfig, server } = resolveKubeConfig(account, { env: {}, noProxy: false });
      const answer = await new KubeHttp(kubeConfig, server).request({
        verb: 'get',
        method: 'GET',
        path: `/api/v1/namespaces/${NS}`,
      });
      expect(answer.status).toBe(200);
    } finally {
      await loaded.dispose();
    }
  });

  it('an agent whose account kubeconfig lives in a Secret brings the account up', async () => {
    // The account starts whether or not the control plane is there; none is needed to see it work.
    const agent = await startInProcessAgent(
      [
        'logging:\n  format: json\n  level: error',
        `server:\n  host: 127.0.0.1\n  port: ${await freePort()}`,
        `cloudctl:\n  grpc: 127.0.0.1:${await freePort()}\n  insecure: true\n  auth:\n    token: not-used`,
        'orchestrator:\n  accounts:\n    - name: from-secret',
        `      orchConfigFile: encryptedFile:k8s!n:agent-secrets!k:kubeconfig!ns:${NS}`,
        `      namespaces: [${NS}]\n      kinds: [configMap]`,
      ].join('\n'),
      { env: { KUBECONFIG: sharedCluster().kubeconfigPath } },
    );
    try {
      await msUntil(
        () => agent.runtime.accounts.status('from-secret')?.state === 'ACTIVE',
        30_000,
        'account from-secret ACTIVE',
      );
      expect(agent.runtime.accounts.status('from-secret')).toMatchObject({ state: 'ACTIVE' });
    } finally {
      await agent.stop();
    }
  });

  it('goes through HTTPS_PROXY like accounts do, and around it with orchestrator.noProxy', async () => {
    const env = {
      KUBECONFIG: sharedCluster().kubeconfigPath,
      HTTPS_PROXY: `http://127.0.0.1:${await freePort()}`,
    };
    const reference = `encrypted:k8s!n:agent-secrets!k:token!ns:${NS}`;
    const proxied = writeConfig(`cloudctl:\n  auth:\n    token: ${reference}\n`);
    const refused = await loadConfig(proxied, { fetchSecrets: true, env });
    expect(refused.issues.map(formatIssue)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${proxied}:3:12: error: cloudctl\\.auth\\.token: cannot read Kubernetes Secret ${NS}/agent-secrets: `,
        ),
      ),
    ]);
    const direct = writeConfig(
      `orchestrator:\n  noProxy: true\ncloudctl:\n  auth:\n    token: ${reference}\n`,
    );
    const loaded = await loadConfig(direct, { fetchSecrets: true, env });
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    expect(loaded.config.cloudctl.auth.token).toBe(TOKEN);
  });

  it("without ns: reads the current context's namespace when run with a kubeconfig", async () => {
    const shared = sharedCluster();
    const config = JSON.parse(
      kubeconfig({ server: shared.server, ca: shared.ca, token: shared.adminToken, name: 'local' }),
    );
    config.contexts[0].context.namespace = NS;
    const local = join(tempDir(), 'kubeconfig');
    writeFileSync(local, JSON.stringify(config));
    const file = writeConfig('cloudctl:\n  auth:\n    token: encrypted:k8s!n:agent-secrets!k:token\n');
    const loaded = await loadConfig(file, { fetchSecrets: true, env: { KUBECONFIG: local } });
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    expect(loaded.config.cloudctl.auth.token).toBe(TOKEN);
  });

  it("in a pod reads with the agent's service account, from its own namespace when ns: is absent", async () => {
    const file = writeConfig(
      'orchestrator:\n  accounts:\n    - name: from-secret\n      orchConfigFile: encryptedFile:k8s!n:agent-secrets!k:kubeconfig\n',
    );
    const loaded = await loadConfig(file, {
      fetchSecrets: true,
      env: inClusterEnv(),
      serviceAccountRoot: await serviceAccountRoot(),
    });
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    expect(readFileSync(loaded.config.orchestrator.accounts[0]?.orchConfigFile ?? '', 'utf8')).toBe(
      accountKubeconfig,
    );
    await loaded.dispose();
  });

  it('names the secret, key and namespace of a missing Secret, a missing key and a forbidden read, never a value', async () => {
    const file = writeConfig(
      [
        'cloudctl:',
        '  auth:',
        '    token: encrypted:k8s!n:no-such-secret!k:token',
        '  tls:',
        '    clientKeyFilePassword: encrypted:k8s!n:agent-secrets!k:passwd',
        'server:',
        '  ssl:',
        `    keyFilePassword: encrypted:k8s!n:elsewhere!k:token!ns:${OTHER}`,
        '',
      ].join('\n'),
    );
    const loaded = await loadConfig(file, {
      fetchSecrets: true,
      env: inClusterEnv(),
      serviceAccountRoot: await serviceAccountRoot(),
    });
    expect(loaded.ok).toBe(false);
    const lines = loaded.issues.map(formatIssue);
    expect(lines).toEqual([
      `${file}:3:12: error: cloudctl.auth.token: Kubernetes Secret ${NS}/no-such-secret does not exist`,
      `${file}:5:28: error: cloudctl.tls.clientKeyFilePassword: Kubernetes Secret ${NS}/agent-secrets has no key 'passwd' (its keys: kubeconfig, token)`,
      expect.stringMatching(
        new RegExp(
          `^${file}:8:22: error: server\\.ssl\\.keyFilePassword: Kubernetes Secret ${OTHER}/elsewhere may not be read by the agent: .*User "system:serviceaccount:${NS}:agent" cannot get resource "secrets".* in the namespace "${OTHER}"$`,
        ),
      ),
    ]);
    for (const line of lines) expect(line).not.toContain(TOKEN);
  });

  it('checks a reference without fetching it in validate: a missing n: is named', async () => {
    const file = writeConfig('cloudctl:\n  auth:\n    token: encrypted:k8s!k:token\n');
    const loaded = await loadConfig(file, { fetchSecrets: false, env: {} });
    expect(loaded.issues.map(formatIssue)).toEqual([
      `${file}:3:12: error: cloudctl.auth.token: the k8s engine needs 'n:' (name of the Kubernetes Secret), for example encrypted:k8s!n:…`,
    ]);
  });
});
