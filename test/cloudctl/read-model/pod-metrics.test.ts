// A pod's metrics as clouddriver shows them: per container, "CPU(cores)" in millicores and
// "MEMORY(bytes)" in MiB, from the metrics.k8s.io PodMetrics metrics-server writes; and their sum for
// the status page's pod row.
import { describe, expect, it } from 'vitest';
import { containerMetrics, podUsage } from '../../../src/cloudctl/read-model/pod-metrics.ts';

const podMetrics = {
  apiVersion: 'metrics.k8s.io/v1beta1',
  kind: 'PodMetrics',
  metadata: { name: 'web-1', namespace: 'default' },
  window: '10.5s',
  containers: [
    // metrics-server's own spelling: nanocores and KiB.
    { name: 'web', usage: { cpu: '249698317n', memory: '65536Ki' } },
    { name: 'sidecar', usage: { cpu: '5m', memory: '12Mi' } },
  ],
};

describe('containerMetrics', () => {
  it('gives each container its CPU and memory in kubectl top spelling, in the pod metrics order', () => {
    expect(containerMetrics(podMetrics)).toEqual([
      { containerName: 'web', metrics: { 'CPU(cores)': '250m', 'MEMORY(bytes)': '64Mi' } },
      { containerName: 'sidecar', metrics: { 'CPU(cores)': '5m', 'MEMORY(bytes)': '12Mi' } },
    ]);
  });

  it('leaves out a figure the API did not write as a quantity, and reads nothing from a non-object', () => {
    expect(
      containerMetrics({ containers: [{ name: 'web', usage: { cpu: 'lots', memory: '1Gi' } }, 'x'] }),
    ).toEqual([{ containerName: 'web', metrics: { 'MEMORY(bytes)': '1024Mi' } }]);
    expect(containerMetrics(null)).toEqual([]);
    expect(containerMetrics({ containers: 'none' })).toEqual([]);
  });
});

describe('podUsage', () => {
  it('sums the containers', () => {
    expect(podUsage(containerMetrics(podMetrics))).toEqual({ cpu: '255m', memory: '76Mi' });
  });

  it('is null for a figure no container reports', () => {
    expect(podUsage([{ containerName: 'web', metrics: { 'MEMORY(bytes)': '3Mi' } }])).toEqual({
      cpu: null,
      memory: '3Mi',
    });
    expect(podUsage([])).toEqual({ cpu: null, memory: null });
  });
});
