// The kind a cached CustomResourceDefinition defines: its group and kind, and the version its objects
// are read through (the storage version among those served).
import { describe, expect, it } from 'vitest';
import { crdKind } from '../../src/cloudctl/caching/crd-kind.ts';

const crd = (spec: Record<string, unknown>) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.stable.example.com' },
  spec: { group: 'stable.example.com', names: { kind: 'CronTab', plural: 'crontabs' }, ...spec },
});

describe('crdKind', () => {
  it('reads the group, the kind, and the storage version among those served', () => {
    const versions = [
      { name: 'v1beta1', served: true, storage: false },
      { name: 'v1', served: true, storage: true },
      { name: 'v2alpha1', served: false, storage: false },
    ];
    expect(crdKind(crd({ scope: 'Namespaced', versions }))).toEqual({
      group: 'stable.example.com',
      kind: 'CronTab',
      version: 'v1',
    });
  });

  it('falls back to the first served version, then to a v1beta1 CRD’s single version', () => {
    const versions = [
      { name: 'v2', served: false, storage: true },
      { name: 'v1', served: true, storage: false },
    ];
    expect(crdKind(crd({ scope: 'Namespaced', versions }))?.version).toBe('v1');
    expect(crdKind(crd({ scope: 'Namespaced', version: 'v1beta1' }))?.version).toBe('v1beta1');
    expect(crdKind(crd({ scope: 'Namespaced' }))?.version).toBeUndefined();
  });

  it('is undefined for a body that names no group or kind', () => {
    expect(crdKind({ spec: { names: { kind: 'CronTab' } } })).toBeUndefined();
    expect(crdKind({ spec: { group: 'stable.example.com' } })).toBeUndefined();
    expect(crdKind('not an object')).toBeUndefined();
  });
});
