// Binding artifacts into manifests, path by path, as the API we mirror binds them: images into pod
// templates (init containers and CronJobs too) and bare Pods, ConfigMaps and Secrets into volumes,
// projected volumes, envFrom and env, workloads into autoscalers; the namespace and account rules;
// and the artifacts a deploy creates binding into the manifests beside them.
import { describe, expect, it } from 'vitest';
import {
  type Artifact,
  bindArtifacts,
  imageName,
  type ManifestLike,
} from '../../../../src/cloudctl/tasks/converters/artifacts/index.ts';

const ACCOUNT = 'prod-east';
const NS = 'shop';

type Manifest = ManifestLike & Record<string, unknown>;

const image = (name: string, reference: string): Artifact => ({
  type: 'docker/image',
  name,
  reference,
  version: reference.slice(name.length + 1),
  location: '',
  metadata: {},
  customKind: false,
});

const versioned = (
  kind: 'configMap' | 'secret',
  name: string,
  version: string,
  extra: Partial<Artifact> = {},
) =>
  ({
    type: `kubernetes/${kind}`,
    name,
    reference: `${name}-${version}`,
    version,
    location: NS,
    metadata: { account: ACCOUNT },
    ...extra,
  }) satisfies Artifact;

function deployment(podSpec: Record<string, unknown>, name = 'checkout'): Manifest {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: podSpec },
    },
  };
}

const podSpecOf = (m: Manifest) => (m.spec as { template: { spec: Record<string, unknown> } }).template.spec;

const bind = (manifests: Manifest[], artifacts: Artifact[], options = {}) =>
  bindArtifacts(manifests, artifacts, { account: ACCOUNT, ...options });

describe('docker/image artifacts', () => {
  const nginx = image('index.docker.io/library/nginx', 'index.docker.io/library/nginx:1.27.2');

  it('replace an image named without a tag, with a tag, or with a digest', () => {
    const m = deployment({
      containers: [
        { name: 'a', image: 'index.docker.io/library/nginx' },
        { name: 'b', image: 'index.docker.io/library/nginx:1.19' },
        {
          name: 'c',
          image:
            'index.docker.io/library/nginx@sha256:4c0fdaa8b6341bfdeca5f18f7837462c80cff90527ee35ef185571e1c327beac',
        },
        { name: 'd', image: 'index.docker.io/library/nginx-exporter:1.0' },
      ],
    });
    const result = bind([m], [nginx]);
    expect(podSpecOf(result.manifests[0] as Manifest).containers).toEqual([
      { name: 'a', image: 'index.docker.io/library/nginx:1.27.2' },
      { name: 'b', image: 'index.docker.io/library/nginx:1.27.2' },
      { name: 'c', image: 'index.docker.io/library/nginx:1.27.2' },
      { name: 'd', image: 'index.docker.io/library/nginx-exporter:1.0' },
    ]);
    expect(result.boundArtifacts).toEqual([nginx]);
    // The manifest given is not changed.
    expect(podSpecOf(m).containers).toContainEqual({ name: 'a', image: 'index.docker.io/library/nginx' });
  });

  it('replace init container images too', () => {
    const m = deployment({
      initContainers: [{ name: 'migrate', image: 'registry.example/shop/migrate' }],
      containers: [{ name: 'app', image: 'registry.example/shop/app:dev' }],
    });
    const result = bind([m], [image('registry.example/shop/migrate', 'registry.example/shop/migrate:2.4.0')]);
    expect(podSpecOf(result.manifests[0] as Manifest)).toEqual({
      initContainers: [{ name: 'migrate', image: 'registry.example/shop/migrate:2.4.0' }],
      containers: [{ name: 'app', image: 'registry.example/shop/app:dev' }],
    });
  });

  it("replace a CronJob's job template images", () => {
    const cron: Manifest = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'nightly-report', namespace: NS },
      spec: {
        schedule: '0 3 * * *',
        jobTemplate: {
          spec: {
            template: {
              spec: {
                restartPolicy: 'Never',
                containers: [{ name: 'report', image: 'registry.example/report' }],
              },
            },
          },
        },
      },
    };
    const result = bind([cron], [image('registry.example/report', 'registry.example/report:2026.11')]);
    expect(result.manifests[0]).toMatchObject({
      spec: {
        jobTemplate: {
          spec: { template: { spec: { containers: [{ image: 'registry.example/report:2026.11' }] } } },
        },
      },
    });
    expect(result.boundArtifacts).toHaveLength(1);
  });

  it("replace a bare Pod's containers, but not its init containers, as the API we mirror does", () => {
    const pod: Manifest = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'debug', namespace: NS },
      spec: {
        initContainers: [{ name: 'init', image: 'busybox' }],
        containers: [{ name: 'shell', image: 'busybox' }],
      },
    };
    const result = bind([pod], [image('busybox', 'busybox:1.37')]);
    expect(result.manifests[0]).toMatchObject({
      spec: { initContainers: [{ image: 'busybox' }], containers: [{ image: 'busybox:1.37' }] },
    });
  });

  it('bind in StatefulSets, DaemonSets, ReplicaSets and Jobs', () => {
    const workloads: Manifest[] = [
      ['apps/v1', 'StatefulSet'],
      ['apps/v1', 'DaemonSet'],
      ['apps/v1', 'ReplicaSet'],
      ['batch/v1', 'Job'],
    ].map(([apiVersion = '', kind = '']) => ({
      apiVersion,
      kind,
      metadata: { name: kind.toLowerCase(), namespace: NS },
      spec: { template: { spec: { containers: [{ name: 'c', image: 'registry.example/app' }] } } },
    }));
    const result = bind(workloads, [image('registry.example/app', 'registry.example/app:7')]);
    for (const m of result.manifests)
      expect(podSpecOf(m).containers).toEqual([{ name: 'c', image: 'registry.example/app:7' }]);
  });

  it('keep a registry port: registry:5000/app is a name, not app with tag 5000/app', () => {
    expect(imageName('registry.example:5000/team/app')).toBe('registry.example:5000/team/app');
    expect(imageName('registry.example:5000/team/app:1.2')).toBe('registry.example:5000/team/app');
    const m = deployment({ containers: [{ name: 'c', image: 'registry.example:5000/team/app' }] });
    const result = bind([m], [image('registry.example:5000/team/app', 'registry.example:5000/team/app:1.2')]);
    expect(podSpecOf(result.manifests[0] as Manifest).containers).toEqual([
      { name: 'c', image: 'registry.example:5000/team/app:1.2' },
    ]);
  });

  it('bind nothing where no image has the name, nor in kinds without pods', () => {
    const m = deployment({ containers: [{ name: 'c', image: 'registry.example/other:1' }] });
    const rollout: Manifest = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'canary', namespace: NS },
      spec: { template: { spec: { containers: [{ name: 'c', image: 'registry.example/app' }] } } },
    };
    const result = bind([m, rollout], [image('registry.example/app', 'registry.example/app:7')]);
    expect(result.manifests).toEqual([m, rollout]);
    expect(result.boundArtifacts).toEqual([]);
  });

  it('bind regardless of namespace and account: images are not objects of a cluster', () => {
    const m = deployment({ containers: [{ name: 'c', image: 'registry.example/app' }] });
    const artifact = { ...image('registry.example/app', 'registry.example/app:7'), location: 'elsewhere' };
    expect(bind([m], [artifact]).boundArtifacts).toEqual([artifact]);
  });
});

describe('configMap and secret artifacts', () => {
  const podSpec = {
    containers: [
      {
        name: 'app',
        image: 'registry.example/app:1',
        envFrom: [{ configMapRef: { name: 'app-env' } }, { secretRef: { name: 'app-credentials' } }],
        env: [
          { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'app-settings', key: 'level' } } },
          { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'api-token', key: 'token' } } },
          { name: 'PLAIN', value: 'app-settings' },
        ],
      },
    ],
    initContainers: [
      {
        name: 'wait',
        image: 'busybox:1.37',
        env: [{ name: 'DB', valueFrom: { secretKeyRef: { name: 'db-password', key: 'password' } } }],
      },
    ],
    volumes: [
      { name: 'settings', configMap: { name: 'app-settings' } },
      { name: 'tls', secret: { secretName: 'app-tls' } },
      {
        name: 'bundle',
        projected: {
          sources: [{ configMap: { name: 'ca-bundle' } }, { secret: { name: 'client-cert' } }],
        },
      },
    ],
  };
  const artifacts = [
    versioned('configMap', 'app-settings', 'v003'),
    versioned('configMap', 'app-env', 'v001'),
    versioned('configMap', 'ca-bundle', 'v010'),
    versioned('secret', 'app-credentials', 'v002'),
    versioned('secret', 'api-token', 'v000'),
    versioned('secret', 'db-password', 'v004'),
    versioned('secret', 'app-tls', 'v007'),
    versioned('secret', 'client-cert', 'v001'),
  ];

  it('replace volumes, projected volumes, envFrom and env valueFrom in containers and init containers', () => {
    const result = bind([deployment(podSpec)], artifacts);
    expect(podSpecOf(result.manifests[0] as Manifest)).toEqual({
      containers: [
        {
          name: 'app',
          image: 'registry.example/app:1',
          envFrom: [
            { configMapRef: { name: 'app-env-v001' } },
            { secretRef: { name: 'app-credentials-v002' } },
          ],
          env: [
            { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'app-settings-v003', key: 'level' } } },
            { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'api-token-v000', key: 'token' } } },
            { name: 'PLAIN', value: 'app-settings' },
          ],
        },
      ],
      initContainers: [
        {
          name: 'wait',
          image: 'busybox:1.37',
          env: [{ name: 'DB', valueFrom: { secretKeyRef: { name: 'db-password-v004', key: 'password' } } }],
        },
      ],
      volumes: [
        { name: 'settings', configMap: { name: 'app-settings-v003' } },
        { name: 'tls', secret: { secretName: 'app-tls-v007' } },
        {
          name: 'bundle',
          projected: {
            sources: [{ configMap: { name: 'ca-bundle-v010' } }, { secret: { name: 'client-cert-v001' } }],
          },
        },
      ],
    });
    expect(new Set(result.boundArtifacts)).toEqual(new Set(artifacts));
  });

  it('do not cross kinds: a secret artifact does not replace a ConfigMap of the same name', () => {
    const m = deployment({ containers: [], volumes: [{ name: 'v', configMap: { name: 'shared-name' } }] });
    const result = bind([m], [versioned('secret', 'shared-name', 'v001')]);
    expect(podSpecOf(result.manifests[0] as Manifest).volumes).toEqual([
      { name: 'v', configMap: { name: 'shared-name' } },
    ]);
    expect(result.boundArtifacts).toEqual([]);
  });

  it('bind only in their namespace', () => {
    const m = deployment({ containers: [], volumes: [{ name: 'v', configMap: { name: 'app-settings' } }] });
    const other = versioned('configMap', 'app-settings', 'v003', { location: 'staging' });
    const result = bind([m], [other]);
    expect(podSpecOf(result.manifests[0] as Manifest).volumes).toEqual([
      { name: 'v', configMap: { name: 'app-settings' } },
    ]);
    expect(result.boundArtifacts).toEqual([]);
  });

  it('bind only in their account, and in any account when they name none', () => {
    const m = deployment({ containers: [], volumes: [{ name: 'v', configMap: { name: 'app-settings' } }] });
    const elsewhere = versioned('configMap', 'app-settings', 'v003', { metadata: { account: 'prod-west' } });
    expect(bind([m], [elsewhere]).boundArtifacts).toEqual([]);
    const anyAccount = versioned('configMap', 'app-settings', 'v003', { metadata: {} });
    expect(bind([m], [anyAccount]).boundArtifacts).toEqual([anyAccount]);
  });

  it('take a manifest without a namespace to be in the default namespace', () => {
    const m = deployment({ containers: [], volumes: [{ name: 'v', configMap: { name: 'app-settings' } }] });
    m.metadata = { name: 'checkout' };
    const artifact = versioned('configMap', 'app-settings', 'v003');
    expect(bind([m], [artifact]).boundArtifacts).toEqual([]);
    expect(bind([m], [artifact], { defaultNamespace: NS }).boundArtifacts).toEqual([artifact]);
  });

  it('accept the orchestrator/ spelling of the type', () => {
    const m = deployment({ containers: [], volumes: [{ name: 'v', configMap: { name: 'app-settings' } }] });
    const artifact = { ...versioned('configMap', 'app-settings', 'v003'), type: 'orchestrator/configMap' };
    expect(podSpecOf(bind([m], [artifact]).manifests[0] as Manifest).volumes).toEqual([
      { name: 'v', configMap: { name: 'app-settings-v003' } },
    ]);
  });
});

describe('artifacts the deploy creates', () => {
  const configMap: Manifest = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'app-settings', namespace: NS },
    data: { level: 'info' },
  };
  const versions = (m: ManifestLike) => (m.kind === 'ConfigMap' ? 4 : undefined);

  it('bind into the manifests beside them, whatever the order given', () => {
    const m = deployment({ containers: [], volumes: [{ name: 'v', configMap: { name: 'app-settings' } }] });
    const result = bind([m, configMap], [], { versionOf: versions });
    expect(podSpecOf(result.manifests[0] as Manifest).volumes).toEqual([
      { name: 'v', configMap: { name: 'app-settings-v004' } },
    ]);
    expect(result.createdArtifacts).toEqual([
      {
        type: 'orchestrator/deployment',
        name: 'checkout',
        location: NS,
        version: '',
        reference: 'checkout',
        metadata: { account: ACCOUNT },
        customKind: false,
      },
      {
        type: 'orchestrator/configMap',
        name: 'app-settings',
        location: NS,
        version: 'v004',
        reference: 'app-settings-v004',
        metadata: { account: ACCOUNT },
        customKind: false,
      },
    ]);
    expect(result.boundArtifacts).toEqual([result.createdArtifacts[1]]);
    // The ConfigMap keeps its name here: whoever versions it renames it.
    expect(result.manifests[1]).toEqual(configMap);
  });

  it('win over a given artifact of the same type, name and namespace', () => {
    const m = deployment({ containers: [], volumes: [{ name: 'v', configMap: { name: 'app-settings' } }] });
    const given = versioned('configMap', 'app-settings', 'v001');
    const result = bind([configMap, m], [given], { versionOf: versions });
    expect(podSpecOf(result.manifests[1] as Manifest).volumes).toEqual([
      { name: 'v', configMap: { name: 'app-settings-v004' } },
    ]);
    expect(result.boundArtifacts).not.toContain(given);
  });

  it("bind a versioned ReplicaSet into an autoscaler's scaleTargetRef, and a Deployment by its name", () => {
    const replicaSet: Manifest = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'worker', namespace: NS },
      spec: { template: { spec: { containers: [{ name: 'w', image: 'registry.example/worker:3' }] } } },
    };
    const hpa = (kind: string, name: string): Manifest => ({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: `${name}-hpa`, namespace: NS },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind, name }, minReplicas: 1, maxReplicas: 5 },
    });
    const result = bind(
      [hpa('ReplicaSet', 'worker'), hpa('Deployment', 'checkout'), replicaSet, deployment({})],
      [],
      {
        versionOf: (m: ManifestLike) => (m.kind === 'ReplicaSet' ? 12 : undefined),
      },
    );
    expect(result.manifests[0]).toMatchObject({
      spec: { scaleTargetRef: { kind: 'ReplicaSet', name: 'worker-v012' } },
    });
    expect(result.manifests[1]).toMatchObject({
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'checkout' } },
    });
    expect(result.boundArtifacts.map((a) => a.reference).sort()).toEqual(['checkout', 'worker-v012']);
  });

  it('do not bind an autoscaler to a ReplicaSet artifact when it scales a Deployment of that name', () => {
    const hpa: Manifest = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: NS },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } },
    };
    const rs = {
      type: 'kubernetes/replicaSet',
      name: 'web',
      reference: 'web-v002',
      location: NS,
      metadata: {},
    };
    const result = bind([hpa], [rs]);
    expect(result.manifests[0]).toMatchObject({ spec: { scaleTargetRef: { name: 'web' } } });
    expect(result.boundArtifacts).toEqual([]);
  });
});
