// cloudctl's Helm chart: one replica on the embedded database by default, several on one PostgreSQL
// whose URL comes from a Secret, a PodDisruptionBudget for them, and a config cloudctl accepts. The
// API server judges the rendered objects (server-side dry run); helm lint judges the chart.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { load, loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { CLOUDCTL_NODE_FLAGS } from '../../src/cloudctl/cloudctl-runtime.ts';
import { parseConfig } from '../../src/cloudctl/config/index.ts';
import { hashToken } from '../../src/cloudctl/index.ts';
import { isRecord } from '../../src/lib/is-record.ts';
import { sharedCluster } from '../cluster/index.ts';
import { tempDir } from '../support/temp-dir.ts';

const run = promisify(execFile);
// biome-ignore lint/suspicious/noExplicitAny: rendered YAML, whose shape is what the assertions check
type Rendered = Record<string, any>;
const CHART = join(import.meta.dirname, '../../helm/cloudctl');
const HA = [
  '--set',
  'replicaCount=3',
  '--set',
  'database.urlSecret.name=cloudctl-postgres',
  '--set-json',
  `config=${JSON.stringify({
    agents: [{ id: 'prod-agent', tokenHash: hashToken('agent-token-chart') }],
    users: [{ name: 'olga', tokenHash: hashToken('ops-token-chart'), roles: ['ops'] }],
  })}`,
];

function tool(name: 'helm' | 'kubectl') {
  const shared = sharedCluster();
  return (args: string[]) =>
    run(join(shared.binDir, name), args, {
      env: { ...process.env, KUBECONFIG: shared.kubeconfigPath, HOME: tempDir('helm-') },
      maxBuffer: 32 << 20,
    });
}

async function render(namespace: string, args: string[]) {
  const { stdout } = await tool('helm')([
    'template',
    'cp',
    CHART,
    '--namespace',
    namespace,
    '--kube-version',
    '1.36.3',
    ...args,
  ]);
  const objects = loadAll(stdout).filter(isRecord);
  const byKind = (kind: string) => objects.filter((o) => o.kind === kind) as Rendered[];
  return { text: stdout, objects, byKind };
}

function configOf(configMaps: Rendered[]) {
  const text = configMaps[0]?.data?.['config.yaml'];
  if (typeof text !== 'string') throw new Error('no config.yaml in the rendered ConfigMap');
  return load(text);
}

describe("cloudctl's Helm chart", () => {
  it('passes helm lint --strict with its defaults and highly available', async () => {
    for (const args of [[], HA]) {
      const { stdout } = await tool('helm')(['lint', '--strict', CHART, ...args]);
      expect(stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    }
  });

  it('renders three replicas on PostgreSQL: URL from the Secret as a file, a PDB, probes, a config cloudctl accepts', async () => {
    const { text, byKind } = await render('cloudctl-ha', HA);
    const [deployment] = byKind('Deployment');
    expect(deployment?.spec.replicas).toBe(3);
    expect(deployment?.spec.strategy).toBeUndefined();
    const pod = deployment?.spec.template.spec;
    const [container] = pod.containers;
    expect(container.command).toEqual([
      '/usr/bin/tini',
      '--',
      'node',
      ...CLOUDCTL_NODE_FLAGS,
      '/app/bin/cloudctl.js',
    ]);
    expect(container.args).toEqual(['serve', '--config', '/etc/cloudctl/config.yaml']);
    expect(container.readinessProbe.httpGet).toEqual({ path: '/ready', port: 'http' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(pod.volumes).toContainEqual({
      name: 'database-url',
      secret: { secretName: 'cloudctl-postgres', items: [{ key: 'url', path: 'url' }] },
    });
    expect(container.volumeMounts).toContainEqual({
      name: 'database-url',
      mountPath: '/etc/cloudctl/database',
      readOnly: true,
    });
    expect(byKind('PodDisruptionBudget').map((pdb) => pdb.spec.maxUnavailable)).toEqual([1]);
    expect(byKind('Secret')).toEqual([]);
    expect(text).not.toContain('postgres://');

    const config = parseConfig(configOf(byKind('ConfigMap')), 'rendered config.yaml', '/etc/cloudctl');
    expect(config.database).toEqual({ urlFile: '/etc/cloudctl/database/url' });
    expect(config.agents.map((a) => a.id)).toEqual(['prod-agent']);
    expect(config.grpc.port).toBe(9091);
    // Webhook jobs call back through the Service, whichever replica is alive.
    expect(config.http.externalUrl).toBe(
      `http://${byKind('Service')[0]?.metadata.name}.cloudctl-ha.svc:8080`,
    );
    const service = byKind('Service')[0];
    expect(service?.spec.ports.map((p: { name: string; port: number }) => [p.name, p.port])).toEqual([
      ['grpc', 9091],
      ['http', 8080],
    ]);
  });

  it('renders one replica on the embedded database by default: recreated, no PDB, data on a volume', async () => {
    const { byKind } = await render('cloudctl-single', []);
    const [deployment] = byKind('Deployment');
    expect(deployment?.spec.replicas).toBe(1);
    expect(deployment?.spec.strategy).toEqual({ type: 'Recreate' });
    expect(deployment?.spec.template.spec.volumes).toContainEqual({ name: 'data', emptyDir: {} });
    expect(byKind('PodDisruptionBudget')).toEqual([]);
    const config = parseConfig(configOf(byKind('ConfigMap')), 'rendered config.yaml', '/etc/cloudctl');
    expect(config.database).toEqual({ dataDir: '/var/lib/cloudctl' });
    const exposed = await render('cloudctl-single', ['--set', 'http.externalUrl=https://deploy.example.com']);
    expect(
      parseConfig(configOf(exposed.byKind('ConfigMap')), 'rendered config.yaml', '/etc/cloudctl').http
        .externalUrl,
    ).toBe('https://deploy.example.com');
    const persistent = await render('cloudctl-single', ['--set', 'persistence.enabled=true']);
    expect(persistent.byKind('PersistentVolumeClaim')).toHaveLength(1);
  });

  it('refuses replicas without PostgreSQL, and chart-owned config keys, saying why', async () => {
    await expect(render('cloudctl-bad', ['--set', 'replicaCount=2'])).rejects.toThrow(
      'replicaCount 2 needs database.urlSecret.name: replicas share one PostgreSQL, and the embedded database is single-node',
    );
    await expect(render('cloudctl-bad', ['--set', 'config.database.dataDir=/x'])).rejects.toThrow(
      'config.database is set by the chart',
    );
  });

  it('renders objects the API server accepts (server-side dry run)', async () => {
    for (const [namespace, args] of [
      ['cloudctl-ha', HA],
      ['cloudctl-single', ['--set', 'persistence.enabled=true']],
    ] as const) {
      await tool('kubectl')(['create', 'namespace', namespace]).catch(() => undefined);
      const { text } = await render(namespace, [...args]);
      const file = join(tempDir('cloudctl-chart-'), 'rendered.yaml');
      writeFileSync(file, text);
      const { stdout } = await tool('kubectl')(['apply', '--dry-run=server', '-f', file]);
      expect(stdout).toMatch(/deployment\.apps\/cp-cloudctl created \(server dry run\)/);
    }
  });
});
