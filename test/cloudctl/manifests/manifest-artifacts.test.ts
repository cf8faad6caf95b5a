// The artifacts a manifest lists: images of its containers, the ConfigMaps and Secrets its pods use,
// and an autoscaler's target, as clouddriver finds them.
import { describe, expect, it } from 'vitest';
import { imageName, manifestArtifacts } from '../../../src/cloudctl/manifests/manifest-artifacts.ts';

describe('manifest artifacts', () => {
  it('lists a Deployment template’s images (name without tag or digest), ConfigMaps and Secrets once each', () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        template: {
          spec: {
            initContainers: [{ name: 'init', image: 'registry.example:5000/init@sha256:abc' }],
            containers: [
              {
                name: 'web',
                image: 'registry.example/web:1.2',
                envFrom: [{ configMapRef: { name: 'web-env-v001' } }],
                env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'web-token', key: 't' } } }],
              },
              { name: 'sidecar', image: 'registry.example/web:1.2' },
            ],
            volumes: [
              { name: 'cfg', configMap: { name: 'web-settings-v003' } },
              { name: 'tls', secret: { secretName: 'web-tls' } },
              { name: 'all', projected: { sources: [{ configMap: { name: 'web-settings-v003' } }] } },
            ],
          },
        },
      },
    };
    expect(manifestArtifacts('Deployment', deployment)).toEqual([
      { type: 'docker/image', name: 'registry.example/web', reference: 'registry.example/web:1.2' },
      { type: 'orchestrator/secret', name: 'web-token', reference: 'web-token' },
      { type: 'orchestrator/configMap', name: 'web-env-v001', reference: 'web-env-v001' },
      {
        type: 'docker/image',
        name: 'registry.example:5000/init',
        reference: 'registry.example:5000/init@sha256:abc',
      },
      { type: 'orchestrator/configMap', name: 'web-settings-v003', reference: 'web-settings-v003' },
      { type: 'orchestrator/secret', name: 'web-tls', reference: 'web-tls' },
    ]);
  });

  it('names a bare Pod’s images with their tag, and an autoscaler’s target', () => {
    const pod = { spec: { containers: [{ name: 'a', image: 'busybox:1.36' }] } };
    expect(manifestArtifacts('Pod', pod)).toEqual([
      { type: 'docker/image', name: 'busybox:1.36', reference: 'busybox:1.36' },
    ]);
    const hpa = { spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } } };
    expect(manifestArtifacts('HorizontalPodAutoscaler', hpa)).toEqual([
      { type: 'orchestrator/deployment', name: 'web', reference: 'web' },
    ]);
  });

  it('lists nothing for a ConfigMap, and cuts an image name at the tag, not at a port', () => {
    expect(manifestArtifacts('ConfigMap', { data: { a: '1' } })).toEqual([]);
    expect(imageName('localhost:5000/app')).toBe('localhost:5000/app');
    expect(imageName('localhost:5000/app:2')).toBe('localhost:5000/app');
    expect(imageName('app')).toBe('app');
  });
});
