import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { formatIssue, loadConfig } from '../../src/agent/config/index.ts';
import { hashToken } from '../../src/cloudctl/index.ts';
import { isRecord } from '../../src/lib/is-record.ts';
import { writeConfig } from '../agent/config/config-fixture.ts';
import { startInProcessAgent } from '../agent/in-process-agent.ts';
import { startTestControlPlane } from '../cloudctl/harness.ts';
import { freePort } from '../cluster/free-port.ts';
import { createServiceAccountToken, sharedCluster, sharedClusterClient } from '../cluster/index.ts';
import { tempDir } from '../support/temp-dir.ts';

const run = promisify(execFile);
const CHART = join(import.meta.dirname, '../../helm/orch-agent');

function tool(name: 'helm' | 'kubectl') {
  const shared = sharedCluster();
  return (args: string[]) =>
    run(join(shared.binDir, name), args, {
      env: { ...process.env, KUBECONFIG: shared.kubeconfigPath, HOME: tempDir() },
      maxBuffer: 32 << 20,
    });
}

const MODES: Record<string, string[]> = {
  agent: ['--set', 'cloudctl.tokenSecret.name=agent-token'],
  'agent-namespaced-write': ['--set', 'rbac.write=true', '--set', 'rbac.namespaces={team-a,team-b}'],
  infrastructure: [
    '--set',
    'mode=infrastructure',
    '--set',
    'accounts[0].name=staging',
    '--set',
    'accounts[0].kubeconfigSecret.name=kc-staging',
    '--set',
    'accounts[0].namespaces={web}',
    '--set',
    'accounts[1].name=production',
    '--set',
    'accounts[1].kubeconfigSecret.name=kc-production',
  ],
  service: [
    '--set',
    'mode=service',
    '--set',
    'cloudctl.tlsSecret=cloudctl-tls',
    '--set',
    'cloudctl.insecure=false',
    '--set',
    'serviceMode.kubeconfigSecret.name=kc-all',
    '--set',
    'serviceMode.accounts[0].name=dev',
    '--set',
    'serviceMode.accounts[0].context=dev',
  ],
};

async function render(
  namespace: string,
  args: string[],
): Promise<{ text: string; objects: Array<Record<string, unknown>> }> {
  const { stdout } = await tool('helm')([
    'template',
    'orch',
    CHART,
    '--namespace',
    namespace,
    '--kube-version',
    '1.36.3',
    ...args,
  ]);
  return { text: stdout, objects: loadAll(stdout).filter(isRecord) };
}

function renderedConfig(objects: Array<Record<string, unknown>>): string {
  const configMap = objects.find(
    (o) => o.kind === 'ConfigMap' && isRecord(o.metadata) && o.metadata.name === 'orch-orch-agent',
  );
  const data = isRecord(configMap?.data) ? configMap.data['config.yaml'] : undefined;
  if (typeof data !== 'string') throw new Error('no config.yaml in the rendered ConfigMap');
  return data;
}

/** The plain `value` environment variables of the chart's agent container (ORCH_AGENT_ID, …). */
function containerEnv(objects: Array<Record<string, unknown>>): Record<string, string> {
  const deployment = objects.find((o) => o.kind === 'Deployment');
  const containers = (deployment as { spec?: { template?: { spec?: { containers?: unknown[] } } } })?.spec
    ?.template?.spec?.containers;
  const env = isRecord(containers?.[0]) && Array.isArray(containers[0].env) ? containers[0].env : [];
  return Object.fromEntries(
    env.filter(isRecord).flatMap((e) => (typeof e.value === 'string' ? [[String(e.name), e.value]] : [])),
  );
}

describe('Helm chart', () => {
  it('passes helm lint --strict', async () => {
    const { stdout } = await tool('helm')(['lint', '--strict', CHART]);
    expect(stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
  });

  it.each(Object.keys(MODES))(
    'renders %s mode into a config the agent accepts, with no secret inlined',
    async (mode) => {
      const { text, objects } = await render('orch-system', MODES[mode] ?? []);
      const loaded = await loadConfig(writeConfig(renderedConfig(objects)), { fetchSecrets: false });
      expect(loaded.issues.map(formatIssue)).toEqual([]);
      expect(loaded.ok).toBe(true);
      expect(text).not.toMatch(/kind: Secret\b/);
      if (mode === 'agent')
        expect(renderedConfig(objects)).toContain('token: encrypted:env!n:ORCH_AGENT_TOKEN');
    },
  );

  it.each(Object.keys(MODES))(
    'renders %s mode into objects the API server accepts (dry run)',
    async (mode) => {
      const namespace = `chart-${mode}`;
      await tool('kubectl')(['create', 'namespace', namespace]).catch(() => undefined);
      for (const ns of ['team-a', 'team-b'])
        await tool('kubectl')(['create', 'namespace', ns]).catch(() => undefined);
      const { text } = await render(namespace, MODES[mode] ?? []);
      const file = join(tempDir(), 'rendered.yaml');
      writeFileSync(file, text);
      // No -n: the rendered objects must say where they go.
      const { stdout } = await tool('kubectl')(['apply', '--dry-run=server', '-f', file]);
      expect(stdout).toMatch(/deployment\.apps\/orch-orch-agent created \(server dry run\)/);
    },
  );

  it('installs, creating the expected objects, with the zone id defaulting to deployment_namespace', async () => {
    const { stdout } = await tool('helm')([
      'install',
      'orch',
      CHART,
      '--namespace',
      'orch-install',
      '--create-namespace',
      '--wait=false',
    ]);
    expect(stdout).toContain('STATUS: deployed');
    const { stdout: listed } = await tool('kubectl')([
      'get',
      'sa,configmap,deploy,svc,pdb',
      '-n',
      'orch-install',
      '-o',
      'name',
    ]);
    for (const name of [
      'serviceaccount/orch-orch-agent',
      'configmap/orch-orch-agent',
      'deployment.apps/orch-orch-agent',
      'service/orch-orch-agent-metrics',
      'poddisruptionbudget.policy/orch-orch-agent',
    ]) {
      expect(listed).toContain(name);
    }
    const { stdout: rbac } = await tool('kubectl')([
      'get',
      'clusterrole/orch-orch-agent-orch-install',
      'clusterrolebinding/orch-orch-agent-orch-install',
      '-o',
      'name',
    ]);
    expect(rbac.trim().split('\n')).toHaveLength(2);
    const { stdout: env } = await tool('kubectl')([
      'get',
      'deploy/orch-orch-agent',
      '-n',
      'orch-install',
      '-o',
      'jsonpath={.spec.template.spec.containers[0].env[?(@.name=="ORCH_AGENT_ZONE_ID")].value}',
    ]);
    expect(env).toBe('orch-orch-agent_orch-install');
    const { stdout: agentId } = await tool('kubectl')([
      'get',
      'deploy/orch-orch-agent',
      '-n',
      'orch-install',
      '-o',
      'jsonpath={.spec.template.spec.containers[0].env[?(@.name=="ORCH_AGENT_ID")].value}',
    ]);
    expect(agentId).toBe('orch-orch-agent');
  });
});

describe('in-cluster mode with the chart', () => {
  it('reaches the API server with the chart ServiceAccount token, within its RBAC and refused outside it', async () => {
    const shared = sharedCluster();
    const namespace = 'orch-in-cluster';
    const healthPort = await freePort();
    // A real cloudctl that knows the agent under the id the chart gives it, with a token Secret as a
    // user would configure: readiness needs the initial state stored there.
    const token = 'token-of-the-chart-agent';
    const cp = await startTestControlPlane({
      agents: [{ id: 'orch-orch-agent', tokenHash: hashToken(token) }],
    });
    const args = [
      '--set',
      `healthPort=${healthPort}`,
      '--set',
      'config.telemetry.enabled=false',
      '--set',
      `cloudctl.grpc=${cp.address}`,
      '--set',
      'cloudctl.tokenSecret.name=orch-agent-token',
    ];
    await tool('helm')([
      'install',
      'orch',
      CHART,
      '--namespace',
      namespace,
      '--create-namespace',
      '--wait=false',
      ...args,
    ]);
    const { objects } = await render(namespace, args);
    const client = sharedClusterClient();
    const saToken = await createServiceAccountToken(client, namespace, 'orch-orch-agent').finally(() =>
      client.close(),
    );

    // What the kubelet would give the pod: the token, the CA and the namespace at the standard path.
    const root = tempDir();
    const saDir = join(root, 'var/run/secrets/kubernetes.io/serviceaccount');
    mkdirSync(saDir, { recursive: true });
    writeFileSync(join(saDir, 'token'), saToken);
    writeFileSync(join(saDir, 'ca.crt'), shared.ca);
    writeFileSync(join(saDir, 'namespace'), namespace);
    const server = new URL(shared.server);
    const env = {
      KUBERNETES_SERVICE_HOST: server.hostname,
      KUBERNETES_SERVICE_PORT: server.port,
      POD_NAMESPACE: namespace,
      ...containerEnv(objects),
      ORCH_AGENT_TOKEN: token,
    };

    const agent = await startInProcessAgent(
      renderedConfig(objects).replace('host: 0.0.0.0', 'host: 127.0.0.1'),
      {
        env,
        serviceAccountRoot: root,
      },
    );
    const lines = agent.logs;
    try {
      const { runtime } = agent;
      expect(runtime.accounts.status('in-cluster')).toMatchObject({ state: 'ACTIVE', cluster: 'in-cluster' });
      // Watching within the chart's RBAC: Secrets are refused, said once in a clear line, and do not
      // hold up the initial sync of everything else.
      const refused = () => lines.filter((l) => l.msg.startsWith('not allowed to watch Secret:'));
      for (let i = 0; i < 200 && refused().length === 0; i++) await sleep(50);
      expect(refused()).toHaveLength(1);
      // The scope lists by a streaming list, a watch: that is the request the API server refuses.
      expect(refused()[0]).toMatchObject({
        level: 40,
        account: 'in-cluster',
        reason: expect.stringContaining(
          `system:serviceaccount:${namespace}:orch-orch-agent" cannot watch resource "secrets"`,
        ),
      });
      const initialSync = () =>
        runtime.checks.report('readiness').checks.find((c) => c.name === 'initial-sync');
      for (let i = 0; i < 300 && initialSync()?.ok !== true; i++) await sleep(50);
      expect(initialSync()).toMatchObject({ ok: true });
      expect(runtime.watches.list().find((w) => w.kind === 'Secret')).toMatchObject({ state: 'forbidden' });
      expect(runtime.watches.list().filter((w) => w.kind === 'ConfigMap')).toEqual([
        expect.objectContaining({ state: 'watching' }),
      ]);
      const op = (id: string, type: string, payload: unknown) =>
        runtime.executor.execute({ id, type, account: 'in-cluster', payload });
      expect(
        await op('ic-1', 'list', { apiVersion: 'v1', kind: 'Pod', namespace: 'kube-system' }),
      ).toMatchObject({ ok: true });
      expect(await op('ic-2', 'list', { apiVersion: 'apps/v1', kind: 'Deployment' })).toMatchObject({
        ok: true,
      });
      expect(await op('ic-3', 'list', { apiVersion: 'v1', kind: 'Secret', namespace })).toMatchObject({
        ok: false,
        error: {
          code: 'FORBIDDEN',
          message: expect.stringContaining(
            `system:serviceaccount:${namespace}:orch-orch-agent" cannot list resource "secrets"`,
          ),
        },
      });
      expect(
        await op('ic-4', 'deploy', {
          manifests: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace } }],
        }),
      ).toMatchObject({
        ok: false,
        error: { code: 'FORBIDDEN' },
      });
      expect(await cp.plane.store.cache.count('in-cluster', { kind: 'ConfigMap' })).toBeGreaterThan(0);
    } finally {
      await agent.stop();
      await cp.close();
    }
  });
});
