// The diff a plan shows per object: JSON paths with before and after, leaves compared, lists item by
// item, the server's bookkeeping left out, and a Secret's values (digests from the agent) shown only
// as changed or not.
import { describe, expect, it } from 'vitest';
import { planDiff } from '../../../src/cloudctl/plans/index.ts';

const deployment = (image: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'ns', labels: { app: 'web' }, ...extra },
  spec: {
    replicas: 2,
    template: {
      spec: {
        containers: [
          { name: 'web', image },
          { name: 'sidecar', image: 'proxy:1' },
        ],
      },
    },
  },
});

describe('planDiff', () => {
  it('names the changed image by its JSON path, with before and after, and nothing else', () => {
    expect(planDiff(deployment('web:1'), deployment('web:2'))).toEqual([
      { path: 'spec.template.spec.containers[0].image', before: 'web:1', after: 'web:2' },
    ]);
  });

  it('answers no change for equal objects, whatever the server changed in its bookkeeping', () => {
    const live = deployment('web:1', {
      uid: 'u1',
      resourceVersion: '10',
      generation: 3,
      creationTimestamp: '2026-01-01T00:00:00Z',
      selfLink: '/x',
      managedFields: [{ manager: 'a' }],
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"old":true}' },
    });
    const planned = {
      ...deployment('web:1', {
        uid: 'u1',
        resourceVersion: '11',
        generation: 4,
        managedFields: [{ manager: 'b' }],
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"new":true}' },
      }),
      status: { replicas: 2 },
    };
    expect(planDiff(live, planned)).toEqual([]);
  });

  it('quotes a key that is not a plain name, and reports an added and a removed field', () => {
    const live = { metadata: { labels: { 'app.kubernetes.io/name': 'web', old: 'x' } } };
    const planned = { metadata: { labels: { 'app.kubernetes.io/name': 'shop', fresh: 'y' } } };
    expect(planDiff(live, planned)).toEqual([
      { path: 'metadata.labels["app.kubernetes.io/name"]', before: 'web', after: 'shop' },
      { path: 'metadata.labels.old', before: 'x' },
      { path: 'metadata.labels.fresh', after: 'y' },
    ]);
  });

  it('compares lists item by item: a longer list adds its extra items by index', () => {
    const live = { spec: { ports: [{ port: 80 }] } };
    const planned = { spec: { ports: [{ port: 80 }, { port: 443 }] } };
    expect(planDiff(live, planned)).toEqual([{ path: 'spec.ports[1].port', after: 443 }]);
  });

  it('reports an emptied list or object as the value it became, and a type change whole', () => {
    expect(planDiff({ spec: { args: ['a'] } }, { spec: { args: [] } })).toEqual([
      { path: 'spec.args[0]', before: 'a' },
    ]);
    expect(planDiff({ spec: {} }, { spec: { tolerations: [] } })).toEqual([
      { path: 'spec.tolerations', after: [] },
    ]);
    expect(planDiff({ spec: { x: 'a' } }, { spec: { x: { y: 1 } } })).toEqual([
      { path: 'spec.x', before: 'a', after: { y: 1 } },
    ]);
  });

  it('diffs a create against nothing and a delete to nothing, leaf by leaf', () => {
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } };
    expect(planDiff(null, object)).toEqual([
      { path: 'apiVersion', after: 'v1' },
      { path: 'kind', after: 'ConfigMap' },
      { path: 'metadata.name', after: 'c' },
      { path: 'data.a', after: '1' },
    ]);
    expect(planDiff(object, null).map((c) => c.path)).toEqual([
      'apiVersion',
      'kind',
      'metadata.name',
      'data.a',
    ]);
    expect(planDiff(object, null).every((c) => c.after === undefined)).toBe(true);
  });

  it("shows a Secret's changed value as (hidden), never its digest, and an unchanged one not at all", () => {
    const secret = (data: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data,
    });
    const live = secret({ same: 'hmac:AAA', changed: 'hmac:BBB', gone: 'hmac:CCC' });
    const planned = secret({ same: 'hmac:AAA', changed: 'hmac:DDD', added: 'hmac:EEE' });
    const diff = planDiff(live, planned);
    expect(diff).toEqual([
      { path: 'data.changed', before: '(hidden)', after: '(hidden)', secret: true },
      { path: 'data.gone', before: '(hidden)', secret: true },
      { path: 'data.added', after: '(hidden)', secret: true },
    ]);
    expect(JSON.stringify(diff)).not.toContain('hmac:');
  });

  it("hides a Secret's stringData values too, and shows a ConfigMap's data as it is", () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { k: 'hmac:1' } };
    expect(planDiff(null, secret)).toContainEqual({ path: 'stringData.k', after: '(hidden)', secret: true });
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'v2' } };
    expect(planDiff({ ...configMap, data: { k: 'v1' } }, configMap)).toEqual([
      { path: 'data.k', before: 'v1', after: 'v2' },
    ]);
  });
});
