// Fills a real cluster with applications as a team runs them: per namespace a few Deployments (with
// their ReplicaSets and Pods), a StatefulSet, a DaemonSet, a Job, a suspended CronJob, Services, an
// Ingress and NetworkPolicies, written through the API server; the controllers and kwok then create
// and run the ReplicaSets and Pods. The ten kinds are the ones the product we replace published its
// many-accounts figures for.
import type { ApiClient } from '../../test/cluster/api-client.ts';
import { create, pool } from './populate.ts';

/** What one namespace holds, before the controllers add ReplicaSets and Pods. */
export const PER_NAMESPACE = {
  deployments: 6,
  deploymentReplicas: 2,
  statefulSetReplicas: 3,
  /** The DaemonSet runs on this many nodes (node affinity), not on every node. */
  daemonSetNodes: 2,
} as const;

/** Collection paths (every namespace) of the ten kinds, for lists that count them. */
export const WORKLOAD_PATHS = [
  '/apis/apps/v1/daemonsets',
  '/apis/apps/v1/deployments',
  '/apis/batch/v1/jobs',
  '/api/v1/pods',
  '/apis/apps/v1/replicasets',
  '/api/v1/services',
  '/apis/apps/v1/statefulsets',
  '/apis/batch/v1/cronjobs',
  '/apis/networking.k8s.io/v1/networkpolicies',
  '/apis/networking.k8s.io/v1/ingresses',
] as const;

/** The ten kinds as the agent's `kinds:` spells them (singular; matched without case). */
export const AGENT_KINDS = [
  'daemonSet',
  'deployment',
  'job',
  'pod',
  'replicaSet',
  'service',
  'statefulSet',
  'cronJob',
  'networkPolicy',
  'ingress',
] as const;

/** The same kinds as the client-go peer names its informers. */
export const PEER_KINDS = [
  'daemonsets',
  'deployments',
  'jobs',
  'pods',
  'replicasets',
  'services',
  'statefulsets',
  'cronjobs',
  'networkpolicies',
  'ingresses',
] as const;

/** Objects of the ten kinds per namespace once the controllers have done their part. */
export function objectsPerNamespace(): number {
  const p = PER_NAMESPACE;
  const pods = p.deployments * p.deploymentReplicas + p.statefulSetReplicas + p.daemonSetNodes + 1;
  const services = p.deployments + 1; // one per Deployment, one headless for the StatefulSet
  // Deployments and their ReplicaSets; a StatefulSet, a DaemonSet, a Job, a CronJob, an Ingress;
  // two NetworkPolicies.
  return 2 * p.deployments + pods + services + 5 + 2;
}

const container = (app: string) => ({
  name: 'app',
  image: `registry.example/${app}:1.0`,
  ports: [{ containerPort: 8080 }],
  resources: { requests: { cpu: '10m', memory: '16Mi' } },
});

const meta = (namespace: string, name: string) => ({
  name,
  namespace,
  labels: { app: name, 'app.kubernetes.io/part-of': 'bench' },
});

const template = (app: string, extra: Record<string, unknown> = {}) => ({
  metadata: { labels: { app } },
  spec: { containers: [container(app)], ...extra },
});

/** A Deployment of `replicas` Pods labelled `app: name`. */
export function deployment(namespace: string, name: string, replicas: number): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta(namespace, name),
    spec: { replicas, selector: { matchLabels: { app: name } }, template: template(name) },
  };
}

function service(namespace: string, name: string, headless = false): object {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(namespace, name),
    spec: {
      selector: { app: name },
      ports: [{ port: 80, targetPort: 8080 }],
      ...(headless ? { clusterIP: 'None' } : {}),
    },
  };
}

function namespaceObjects(
  namespace: string,
  nodes: readonly string[],
): Array<{ path: string; body: object }> {
  const p = PER_NAMESPACE;
  const core = `/api/v1/namespaces/${namespace}`;
  const apps = `/apis/apps/v1/namespaces/${namespace}`;
  const batch = `/apis/batch/v1/namespaces/${namespace}`;
  const networking = `/apis/networking.k8s.io/v1/namespaces/${namespace}`;
  const webs = Array.from({ length: p.deployments }, (_, i) => `web-${i}`);
  const objects: Array<{ path: string; body: object }> = [];
  for (const name of webs) {
    objects.push({ path: `${apps}/deployments`, body: deployment(namespace, name, p.deploymentReplicas) });
    objects.push({ path: `${core}/services`, body: service(namespace, name) });
  }
  objects.push({ path: `${core}/services`, body: service(namespace, 'db', true) });
  objects.push({
    path: `${apps}/statefulsets`,
    body: {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: meta(namespace, 'db'),
      spec: {
        serviceName: 'db',
        replicas: p.statefulSetReplicas,
        podManagementPolicy: 'Parallel',
        selector: { matchLabels: { app: 'db' } },
        template: template('db'),
      },
    },
  });
  objects.push({
    path: `${apps}/daemonsets`,
    body: {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: meta(namespace, 'log-shipper'),
      spec: {
        selector: { matchLabels: { app: 'log-shipper' } },
        template: template('log-shipper', {
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [
                  {
                    matchExpressions: [
                      {
                        key: 'kubernetes.io/hostname',
                        operator: 'In',
                        values: nodes.slice(0, p.daemonSetNodes),
                      },
                    ],
                  },
                ],
              },
            },
          },
        }),
      },
    },
  });
  const jobSpec = { backoffLimit: 0, template: template('migrate', { restartPolicy: 'Never' }) };
  objects.push({
    path: `${batch}/jobs`,
    body: { apiVersion: 'batch/v1', kind: 'Job', metadata: meta(namespace, 'migrate'), spec: jobSpec },
  });
  // Suspended: a CronJob firing during the run would change the population being counted.
  objects.push({
    path: `${batch}/cronjobs`,
    body: {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: meta(namespace, 'nightly-report'),
      spec: { schedule: '0 3 * * *', suspend: true, jobTemplate: { spec: jobSpec } },
    },
  });
  objects.push({
    path: `${networking}/ingresses`,
    body: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: meta(namespace, 'web'),
      spec: {
        rules: webs.slice(0, 2).map((name) => ({
          host: `${name}.${namespace}.bench.example`,
          http: {
            paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name, port: { number: 80 } } } }],
          },
        })),
      },
    },
  });
  objects.push({
    path: `${networking}/networkpolicies`,
    body: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: meta(namespace, 'default-deny'),
      spec: { podSelector: {}, policyTypes: ['Ingress'] },
    },
  });
  objects.push({
    path: `${networking}/networkpolicies`,
    body: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: meta(namespace, 'allow-web'),
      spec: {
        podSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: webs }] },
        ingress: [{ from: [{ namespaceSelector: {} }], ports: [{ port: 8080 }] }],
        policyTypes: ['Ingress'],
      },
    },
  });
  return objects;
}

/** Creates the namespaces and their applications; the controllers create the rest afterwards. */
export async function populateWorkloads(
  client: ApiClient,
  namespaces: readonly string[],
  nodes: readonly string[],
  concurrency = 16,
): Promise<void> {
  const all = namespaces.flatMap((namespace) => namespaceObjects(namespace, nodes));
  await pool(0, namespaces.length, concurrency, (i) =>
    create(client, '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespaces[i] },
    }),
  );
  await pool(0, all.length, concurrency, async (i) => {
    const object = all[i];
    if (object !== undefined) await create(client, object.path, object.body);
  });
}
