// The agent's default zone: `<deployment name>_<namespace>` of the Deployment its pod belongs to,
// from the downward API variables; an explicit ORCH_AGENT_ZONE_ID wins; outside a Deployment's pod
// the zone is empty.
import { describe, expect, it } from 'vitest';
import { identityFromEnv } from '../../../src/agent/connection/index.ts';
import { defaultZoneId, deploymentOfPod } from '../../../src/agent/connection/zone-id.ts';

describe('deploymentOfPod', () => {
  it('cuts the pod-template-hash and the random suffix off, exactly when the hash is known', () => {
    expect(deploymentOfPod('orch-agent-7d9c5b8f6c-x2k4q', '7d9c5b8f6c')).toBe('orch-agent');
    // A deployment name that itself ends like a hash is kept whole when the hash is known.
    expect(deploymentOfPod('web-5bc4d-6f7c9d8b5-zq2lp', '6f7c9d8b5')).toBe('web-5bc4d');
    expect(deploymentOfPod('orch-agent-0-x2k4q', '7d9c5b8f6c')).toBeUndefined();
    expect(deploymentOfPod('orch-agent-7d9c5b8f6c-x2k4q-extra', '7d9c5b8f6c')).toBeUndefined();
  });

  it("reads a Deployment pod's name by its shape when the hash is not given", () => {
    expect(deploymentOfPod('orch-agent-7d9c5b8f6c-x2k4q', undefined)).toBe('orch-agent');
    expect(deploymentOfPod('a-b-c-7d9c5b8f6c-x2k4q', undefined)).toBe('a-b-c');
    // A StatefulSet's pod (ordinal), a bare pod, letters Kubernetes never generates: no deployment.
    expect(deploymentOfPod('orch-agent-0', undefined)).toBeUndefined();
    expect(deploymentOfPod('debug', undefined)).toBeUndefined();
    expect(deploymentOfPod('orch-agent-7d9c5b8f6c-abcde', undefined)).toBeUndefined();
  });
});

describe('defaultZoneId', () => {
  it('is <deployment>_<namespace> in a Deployment pod, and undefined without name or namespace', () => {
    expect(
      defaultZoneId({ name: 'orch-agent-7d9c5b8f6c-x2k4q', namespace: 'spin', templateHash: '7d9c5b8f6c' }),
    ).toBe('orch-agent_spin');
    expect(
      defaultZoneId({ name: 'orch-agent-7d9c5b8f6c-x2k4q', namespace: undefined, templateHash: undefined }),
    ).toBe(undefined);
    expect(defaultZoneId({ name: undefined, namespace: 'spin', templateHash: undefined })).toBeUndefined();
  });
});

describe('identityFromEnv zone', () => {
  const pod = { POD_NAME: 'orch-agent-7d9c5b8f6c-x2k4q', POD_TEMPLATE_HASH: '7d9c5b8f6c' };

  it("computes the spec's default from the pod's name and namespace", () => {
    expect(identityFromEnv({ ...pod, POD_NAMESPACE: 'spin' }, 'host').zoneId).toBe('orch-agent_spin');
  });

  it('takes the namespace from the service account when POD_NAMESPACE is not set', () => {
    expect(identityFromEnv(pod, 'host', () => 'from-sa').zoneId).toBe('orch-agent_from-sa');
  });

  it('lets ORCH_AGENT_ZONE_ID win, and is empty outside a Deployment pod', () => {
    expect(
      identityFromEnv({ ...pod, POD_NAMESPACE: 'spin', ORCH_AGENT_ZONE_ID: 'eu-1' }, 'host').zoneId,
    ).toBe('eu-1');
    expect(identityFromEnv({}, 'laptop', () => undefined).zoneId).toBe('');
    expect(identityFromEnv({ POD_NAME: 'debug', POD_NAMESPACE: 'spin' }, 'host').zoneId).toBe('');
  });

  it("reads the pod's name from the host name when POD_NAME is not set, and only inside a pod", () => {
    // Kubernetes sets a pod's host name to its name; a pod's namespace (the service account's
    // file, or POD_NAMESPACE) is what says the agent runs in one.
    expect(identityFromEnv({}, 'orch-agent-7d9c5b8f6c-x2k4q', () => 'spin').zoneId).toBe('orch-agent_spin');
    expect(
      identityFromEnv(
        { POD_NAMESPACE: 'spin', POD_TEMPLATE_HASH: '7d9c5b8f6c' },
        'orch-agent-7d9c5b8f6c-x2k4q',
      ).zoneId,
    ).toBe('orch-agent_spin');
    expect(identityFromEnv({}, 'orch-agent-7d9c5b8f6c-x2k4q', () => undefined).zoneId).toBe('');
  });
});
