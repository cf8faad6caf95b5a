import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatIssue, loadConfig } from '../../../src/agent/config/index.ts';
import { freePort } from '../../cluster/free-port.ts';
import {
  type ApiClient,
  createServiceAccountToken,
  type OpenBao,
  sharedCluster,
  sharedClusterClient,
  startOpenBao,
} from '../../cluster/index.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { writeConfig } from './config-fixture.ts';

// A real OpenBao dev server holds the secrets; its Kubernetes auth method checks the agent's service
// account token against the shared cluster's API server (TokenReview).
const suffix = Math.random().toString(36).slice(2, 8);
const NS = `vault-engine-${suffix}`;
const TOKEN = `cloudctl-token-${suffix}-value`;
const KUBECONFIG_TEXT = `apiVersion: v1\nkind: Config\n# ${suffix}\n`;
let bao: OpenBao;
let admin: ApiClient;
/** A Vault token whose only policy reads secret/data/agent. */
let readerToken: string;

async function create(path: string, body: Record<string, unknown>) {
  const response = await admin.request('POST', path, { body });
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${response.text}`);
}

async function serviceAccountRoot(serviceAccount: string): Promise<string> {
  const root = tempDir();
  const dir = join(root, 'var/run/secrets/kubernetes.io/serviceaccount');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'token'), await createServiceAccountToken(admin, NS, serviceAccount));
  writeFileSync(join(dir, 'ca.crt'), sharedCluster().ca);
  writeFileSync(join(dir, 'namespace'), NS);
  return root;
}

function vaultSettings(lines: string[]): string {
  return [
    'secrets:',
    '  store:',
    '    vault:',
    '      enabled: true',
    `      url: ${bao.url}`,
    ...lines,
  ].join('\n');
}

beforeAll(async () => {
  const shared = sharedCluster();
  admin = sharedClusterClient();
  bao = await startOpenBao(tempDir());
  await bao.api('POST', 'secret/data/agent', { data: { token: TOKEN, kubeconfig: KUBECONFIG_TEXT } });
  await bao.api('PUT', 'sys/policies/acl/read-agent', {
    policy: 'path "secret/data/agent" { capabilities = ["read"] }',
  });
  const created = await bao.api('POST', 'auth/token/create', { policies: ['read-agent'] });
  readerToken = (created as { auth: { client_token: string } }).auth.client_token;

  await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  for (const name of ['agent', 'stranger'])
    await create(`/api/v1/namespaces/${NS}/serviceaccounts`, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name },
    });
  // Kubernetes auth mounted at a path of our own, as a cluster beside others would be.
  await bao.api('POST', 'sys/auth/test-cluster', { type: 'kubernetes' });
  await bao.api('POST', 'auth/test-cluster/config', {
    kubernetes_host: shared.server,
    kubernetes_ca_cert: shared.ca,
    token_reviewer_jwt: shared.adminToken,
    disable_local_ca_jwt: true,
  });
  await bao.api('POST', 'auth/test-cluster/role/orch-agent', {
    bound_service_account_names: ['agent'],
    bound_service_account_namespaces: [NS],
    token_policies: ['read-agent'],
  });
});

afterAll(async () => {
  await bao?.stop();
  await admin?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await admin?.close();
});

describe('the vault engine', () => {
  it('reads KV v2 secrets with token auth, the token from VAULT_TOKEN', async () => {
    const file = writeConfig(
      [
        vaultSettings([]),
        'cloudctl:',
        '  auth:',
        '    token: encrypted:vault!e:secret!p:agent!k:token',
        'orchestrator:',
        '  accounts:',
        '    - name: from-vault',
        '      orchConfigFile: encryptedFile:vault!e:secret!p:agent!k:kubeconfig',
        '',
      ].join('\n'),
    );
    const loaded = await loadConfig(file, { fetchSecrets: true, env: { VAULT_TOKEN: readerToken } });
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    expect(loaded.config.cloudctl.auth.token).toBe(TOKEN);
    expect(readFileSync(loaded.config.orchestrator.accounts[0]?.orchConfigFile ?? '', 'utf8')).toBe(
      KUBECONFIG_TEXT,
    );
    await loaded.dispose();
  });

  it('reads a path whose names hold spaces and a question mark', async () => {
    await bao.api('POST', 'secret/data/team%20a/db%3Fv2', { data: { password: 'team-a-password' } });
    const file = writeConfig(
      [
        vaultSettings([]),
        'cloudctl:',
        '  auth:',
        '    token: encrypted:vault!e:secret!p:team a/db?v2!k:password',
        '',
      ].join('\n'),
    );
    const loaded = await loadConfig(file, { fetchSecrets: true, env: { VAULT_TOKEN: bao.rootToken } });
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    expect(loaded.config.cloudctl.auth.token).toBe('team-a-password');
  });

  it('reads from an OpenBao namespace named by the namespace setting', async () => {
    const namespace = `team-${suffix}`;
    await bao.api('POST', `sys/namespaces/${namespace}`, {});
    await bao.api('POST', 'sys/mounts/kv', { type: 'kv', options: { version: '2' } }, namespace);
    await bao.api('POST', 'kv/data/agent', { data: { token: 'namespaced-value' } }, namespace);
    const file = writeConfig(
      [
        vaultSettings([`      namespace: ${namespace}`]),
        'cloudctl:',
        '  auth:',
        '    token: encrypted:vault!e:kv!p:agent!k:token',
        '',
      ].join('\n'),
    );
    const loaded = await loadConfig(file, { fetchSecrets: true, env: { VAULT_TOKEN: bao.rootToken } });
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    expect(loaded.config.cloudctl.auth.token).toBe('namespaced-value');
  });

  it('takes the token setting, itself a reference to another engine', async () => {
    const file = writeConfig(
      [
        vaultSettings(['      token: encrypted:env!n:BAO_READER']),
        'cloudctl:',
        '  auth:',
        '    token: encrypted:vault!e:secret!p:agent!k:token',
        '',
      ].join('\n'),
    );
    const loaded = await loadConfig(file, { fetchSecrets: true, env: { BAO_READER: readerToken } });
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    expect(loaded.config.cloudctl.auth.token).toBe(TOKEN);
  });

  it("logs in with the pod's service account through Kubernetes auth, checked by the cluster's TokenReview", async () => {
    const file = writeConfig(
      [
        vaultSettings(['      authMethod: kubernetes', '      role: orch-agent', '      path: test-cluster']),
        'cloudctl:',
        '  auth:',
        '    token: encrypted:vault!e:secret!p:agent!k:token',
        '',
      ].join('\n'),
    );
    const loaded = await loadConfig(file, {
      fetchSecrets: true,
      env: {},
      serviceAccountRoot: await serviceAccountRoot('agent'),
    });
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    expect(loaded.config.cloudctl.auth.token).toBe(TOKEN);
  });

  it('logs in again when the token of its Kubernetes login has expired (engines outlive the load for dynamic accounts)', async () => {
    await bao.api('POST', 'auth/test-cluster/role/short-lived', {
      bound_service_account_names: ['agent'],
      bound_service_account_namespaces: [NS],
      token_policies: ['read-agent'],
      token_ttl: 1,
      token_max_ttl: 1,
    });
    const file = writeConfig(
      vaultSettings([
        '      authMethod: KUBERNETES',
        '      role: short-lived',
        '      path: test-cluster',
        '',
      ]),
    );
    const loaded = await loadConfig(file, {
      fetchSecrets: true,
      env: {},
      serviceAccountRoot: await serviceAccountRoot('agent'),
    });
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    const vault = loaded.secretEngines.find((engine) => engine.name === 'vault');
    const reference = { e: 'secret', p: 'agent', k: 'token' };
    expect(await vault?.resolve(reference)).toBe(TOKEN);
    // Well past the 1 s TTL: the first login's token is refused from here on.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await vault?.resolve(reference)).toBe(TOKEN);
  });

  it('refuses a service account the role is not bound to, naming role and mount', async () => {
    const file = writeConfig(
      [
        vaultSettings(['      authMethod: KUBERNETES', '      role: orch-agent', '      path: test-cluster']),
        'cloudctl:',
        '  auth:',
        '    token: encrypted:vault!e:secret!p:agent!k:token',
        '',
      ].join('\n'),
    );
    const loaded = await loadConfig(file, {
      fetchSecrets: true,
      env: {},
      serviceAccountRoot: await serviceAccountRoot('stranger'),
    });
    expect(loaded.issues.map(formatIssue)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${file}:11:12: error: cloudctl\\.auth\\.token: Vault refused the Kubernetes login as role 'orch-agent' at auth/test-cluster \\(HTTP 403: .+\\)$`,
        ),
      ),
    ]);
  });

  it('names the missing secret, missing key, unmounted engine and refused token, never a value or the token', async () => {
    const file = writeConfig(
      [
        vaultSettings([]),
        'cloudctl:',
        '  auth:',
        '    token: encrypted:vault!e:secret!p:no-such!k:token',
        '  tls:',
        '    clientKeyFilePassword: encrypted:vault!e:secret!p:agent!k:passwd',
        '    cacertFile: encryptedFile:vault!e:kv-nowhere!p:agent!k:token',
        '',
      ].join('\n'),
    );
    const loaded = await loadConfig(file, { fetchSecrets: true, env: { VAULT_TOKEN: bao.rootToken } });
    const lines = loaded.issues.map(formatIssue);
    expect(lines).toEqual([
      `${file}:8:12: error: cloudctl.auth.token: Vault secret secret/no-such does not exist (or its latest version is deleted)`,
      `${file}:10:28: error: cloudctl.tls.clientKeyFilePassword: Vault secret secret/agent has no key 'passwd' (its keys: kubeconfig, token)`,
      expect.stringMatching(
        new RegExp(
          `^${file}:11:17: error: cloudctl\\.tls\\.cacertFile: Vault has no KV engine mounted at 'kv-nowhere' \\(.+\\)$`,
        ),
      ),
    ]);

    const refused = await loadConfig(file, {
      fetchSecrets: true,
      env: { VAULT_TOKEN: `${readerToken}x` },
    });
    const refusedLines = refused.issues.map(formatIssue);
    expect(refusedLines[0]).toBe(
      `${file}:8:12: error: cloudctl.auth.token: Vault denied reading secret/data/no-such: the token is invalid, expired, or has no policy that allows reading it (permission denied)`,
    );
    for (const line of [...lines, ...refusedLines]) {
      expect(line).not.toContain(TOKEN);
      expect(line).not.toContain(readerToken);
      expect(line).not.toContain(bao.rootToken);
    }
  });

  it('says when Vault cannot be reached', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const file = writeConfig(
      [
        `secrets:\n  store:\n    vault:\n      enabled: true\n      url: ${closed}`,
        'cloudctl:\n  auth:\n    token: encrypted:vault!e:secret!p:agent!k:token\n',
      ].join('\n'),
    );
    const loaded = await loadConfig(file, { fetchSecrets: true, env: { VAULT_TOKEN: readerToken } });
    expect(loaded.issues.map(formatIssue)).toEqual([
      `${file}:8:12: error: cloudctl.auth.token: cannot reach Vault at ${closed}: ECONNREFUSED`,
    ]);
  });
});
