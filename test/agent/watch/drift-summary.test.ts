// Drift as the agent reads it from managedFields: which other managers changed an object cloudctl
// deployed after the agent last wrote it, with their paths in JSON path form, and nothing for
// objects cloudctl did not deploy.
import { describe, expect, it } from 'vitest';
import { driftInBytes, driftOf } from '../../../src/agent/watch/drift-summary.ts';
import { scanObjectHead } from '../../../src/lib/object-head.ts';

const agentApply = {
  manager: 'orch-agent',
  operation: 'Apply',
  time: '2026-11-28T20:00:00Z',
  fieldsV1: {
    'f:metadata': { 'f:annotations': { 'f:deploy.vendor.io/content-hash': {} } },
    'f:spec': {
      'f:template': {
        'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:name': {}, 'f:ports': {} } } },
      },
    },
  },
};
const kubectlScale = {
  manager: 'kubectl',
  operation: 'Update',
  subresource: 'scale',
  time: '2026-11-28T20:05:00Z',
  fieldsV1: { 'f:spec': { 'f:replicas': {} } },
};
const kubectlEdit = {
  manager: 'kubectl-edit',
  operation: 'Update',
  time: '2026-11-28T20:06:00Z',
  fieldsV1: {
    'f:spec': {
      'f:template': {
        'f:metadata': { 'f:labels': { 'f:app.kubernetes.io/name': {} } },
        'f:spec': {
          'f:containers': {
            'k:{"name":"web"}': { 'f:image': {} },
            'k:{"containerPort":80,"protocol":"TCP"}': { '.': {} },
          },
        },
      },
    },
  },
};
const controllerStatus = {
  manager: 'kube-controller-manager',
  operation: 'Update',
  subresource: 'status',
  time: '2026-11-28T20:07:00Z',
  fieldsV1: { 'f:status': { 'f:replicas': {} } },
};
const controllerMetadata = {
  manager: 'kube-controller-manager',
  operation: 'Update',
  time: '2026-11-28T20:07:00Z',
  fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:deployment.kubernetes.io/revision': {} } } },
};

describe('driftOf', () => {
  it('names a kubectl scale after the deploy: manager, subresource, time and spec.replicas', () => {
    expect(driftOf([agentApply, kubectlScale])).toEqual({
      managers: [
        {
          manager: 'kubectl',
          operation: 'Update',
          subresource: 'scale',
          time: '2026-11-28T20:05:00Z',
          paths: ['spec.replicas'],
          morePaths: 0,
        },
      ],
    });
  });

  it('writes list items by their merge keys and quotes names that are not identifiers', () => {
    expect(driftOf([agentApply, kubectlEdit])?.managers[0]?.paths).toEqual([
      'spec.template.metadata.labels["app.kubernetes.io/name"]',
      'spec.template.spec.containers[name=web].image',
      'spec.template.spec.containers[containerPort=80,protocol=TCP]',
    ]);
  });

  it('leaves out status and metadata writers, and managers older than the agent', () => {
    const older = { ...kubectlScale, time: '2026-11-28T19:00:00Z' };
    expect(driftOf([agentApply, controllerStatus, controllerMetadata, older])).toBeUndefined();
  });

  it('counts the agent client-side apply as the agent: a later write of its own clears nothing away', () => {
    const clientSide = { ...agentApply, manager: 'kubectl-client-side-apply', operation: 'Update' };
    const later = { ...clientSide, time: '2026-11-28T20:10:00Z' };
    expect(driftOf([clientSide, kubectlScale])?.managers.map((m) => m.manager)).toEqual(['kubectl']);
    expect(driftOf([later, kubectlScale])).toBeUndefined();
  });

  it('in the same second as the agent, counts a manager only when it owns a path the agent does not', () => {
    const sameSecondNew = { ...kubectlScale, time: agentApply.time };
    const sameSecondShared = {
      ...kubectlScale,
      time: agentApply.time,
      fieldsV1: {
        'f:spec': {
          'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { 'f:name': {} } } } },
        },
      },
    };
    expect(driftOf([agentApply, sameSecondNew])?.managers).toHaveLength(1);
    expect(driftOf([agentApply, sameSecondShared])).toBeUndefined();
  });

  it('counts a manager without a time (a scale) when it took a path from the agent', () => {
    const { time: _none, ...untimed } = kubectlScale;
    expect(driftOf([agentApply, untimed])?.managers).toEqual([
      expect.objectContaining({ manager: 'kubectl', time: null, paths: ['spec.replicas'] }),
    ]);
    const shared = { ...untimed, fieldsV1: agentApply.fieldsV1 };
    expect(driftOf([agentApply, shared])).toBeUndefined();
  });

  it('lists at most 20 paths and counts the rest', () => {
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`f:key${i}`, {}]));
    const editor = { ...kubectlScale, fieldsV1: { 'f:data': many } };
    const [m] = driftOf([agentApply, editor])?.managers ?? [];
    expect(m?.paths).toHaveLength(20);
    expect(m?.morePaths).toBe(5);
  });
});

describe('driftInBytes', () => {
  const object = (annotations: Record<string, string>) =>
    Buffer.from(
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', annotations, managedFields: [agentApply, kubectlScale] },
        spec: { replicas: 3 },
      }),
    );

  it('reads the drift of an object carrying the content hash', () => {
    const bytes = object({ 'deploy.vendor.io/content-hash': 'abc' });
    expect(driftInBytes(bytes, scanObjectHead(bytes))?.managers[0]?.paths).toEqual(['spec.replicas']);
  });

  it('never flags an object cloudctl did not deploy, whatever its managedFields', () => {
    const bytes = object({ other: 'deploy.vendor.io/content-hash' });
    expect(driftInBytes(bytes, scanObjectHead(bytes))).toBeUndefined();
  });
});
