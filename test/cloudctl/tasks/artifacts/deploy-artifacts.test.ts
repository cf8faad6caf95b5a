// How a deploy's artifact fields combine, as the API we mirror combines them: required before
// optional before allArtifacts, a required artifact that binds nowhere refuses the deploy, binding
// switched off binds nothing given, and expected-artifact ids resolve as Orca resolves them.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  bindDeployArtifacts,
  deployArtifactFields,
  type ManifestLike,
} from '../../../../src/cloudctl/tasks/converters/artifacts/index.ts';
import { PayloadError } from '../../../../src/cloudctl/tasks/converters/index.ts';

const fields = (input: Record<string, unknown>) => z.object(deployArtifactFields).parse(input);

const IMAGE = 'index.docker.io/library/alpine';
const alpine = (tag: string) => ({
  name: IMAGE,
  type: 'docker/image',
  reference: `${IMAGE}:${tag}`,
  version: tag,
  location: '',
  metadata: {},
  customKind: false,
});

const web: ManifestLike & Record<string, unknown> = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'apps' },
  spec: { template: { spec: { containers: [{ name: 'web', image: IMAGE }] } } },
};
const imageOf = (m: unknown) =>
  (m as { spec: { template: { spec: { containers: [{ image: string }] } } } }).spec.template.spec
    .containers[0].image;

const bindWith = (input: Record<string, unknown>) =>
  bindDeployArtifacts([web], fields(input), { account: 'prod' });

function refusal(run: () => unknown): PayloadError {
  try {
    run();
  } catch (error) {
    if (error instanceof PayloadError) return error;
    throw error;
  }
  throw new Error('expected a PayloadError');
}

describe('a deploy binds its artifacts', () => {
  it('binds an optional artifact', () => {
    const result = bindWith({ optionalArtifacts: [alpine('3.20')] });
    expect(imageOf(result.manifests[0])).toBe(`${IMAGE}:3.20`);
    expect(result.boundArtifacts).toEqual([alpine('3.20')]);
  });

  it('binds the required artifact over an optional one of the same name', () => {
    const result = bindWith({ requiredArtifacts: [alpine('3.19')], optionalArtifacts: [alpine('3.20')] });
    expect(imageOf(result.manifests[0])).toBe(`${IMAGE}:3.19`);
    expect(result.boundArtifacts).toEqual([alpine('3.19')]);
  });

  it('binds allArtifacts after the optional ones', () => {
    expect(imageOf(bindWith({ allArtifacts: [alpine('3.18')] }).manifests[0])).toBe(`${IMAGE}:3.18`);
    const both = bindWith({ optionalArtifacts: [alpine('3.20')], allArtifacts: [alpine('3.18')] });
    expect(imageOf(both.manifests[0])).toBe(`${IMAGE}:3.20`);
  });

  it('binds nothing given, and requires nothing, when binding is switched off', () => {
    const result = bindWith({
      requiredArtifacts: [alpine('3.19')],
      optionalArtifacts: [alpine('3.20')],
      enableArtifactBinding: false,
    });
    expect(imageOf(result.manifests[0])).toBe(IMAGE);
    expect(result.boundArtifacts).toEqual([]);
  });

  it('refuses a required artifact that binds nowhere, naming it', () => {
    const missing = {
      ...alpine('1.0'),
      name: 'registry.example/not-in-any-manifest',
      reference: 'registry.example/not-in-any-manifest:1.0',
    };
    const error = refusal(() => bindWith({ requiredArtifacts: [missing] }));
    expect(error.path).toBe('requiredArtifacts');
    expect(error.message).toContain(
      'docker/image registry.example/not-in-any-manifest (reference registry.example/not-in-any-manifest:1.0)',
    );
  });

  it('refuses a required ConfigMap artifact of another namespace', () => {
    const m = {
      ...web,
      spec: { template: { spec: { containers: [], volumes: [{ name: 'v', configMap: { name: 'cfg' } }] } } },
    };
    const artifact = {
      type: 'kubernetes/configMap',
      name: 'cfg',
      reference: 'cfg-v001',
      version: 'v001',
      location: 'other',
    };
    const error = refusal(() =>
      bindDeployArtifacts([m], fields({ requiredArtifacts: [artifact] }), { account: 'prod' }),
    );
    expect(error.message).toContain('kubernetes/configMap cfg in other (reference cfg-v001)');
  });
});

describe('expected-artifact ids', () => {
  const expected = [
    {
      id: '6e5c1b0a-9d1e-4a63-8d8c-3f2b0f1a2e44',
      matchArtifact: { type: 'docker/image', name: IMAGE, artifactAccount: 'docker-registry' },
      boundArtifact: alpine('3.17'),
    },
  ];

  it('resolve requiredArtifactIds against resolvedExpectedArtifacts, taking the match account', () => {
    const result = bindWith({ requiredArtifactIds: [expected[0]?.id], resolvedExpectedArtifacts: expected });
    expect(imageOf(result.manifests[0])).toBe(`${IMAGE}:3.17`);
    expect(result.boundArtifacts).toEqual([{ ...alpine('3.17'), artifactAccount: 'docker-registry' }]);
  });

  it("resolve a stage's {expectedArtifactId} and {artifact} entries", () => {
    const byId = bindWith({
      requiredArtifacts: [{ expectedArtifactId: expected[0]?.id }],
      resolvedExpectedArtifacts: expected,
    });
    expect(imageOf(byId.manifests[0])).toBe(`${IMAGE}:3.17`);
    const inline = bindWith({ requiredArtifacts: [{ expectedArtifactId: null, artifact: alpine('3.16') }] });
    expect(imageOf(inline.manifests[0])).toBe(`${IMAGE}:3.16`);
  });

  it('refuse an id the payload cannot resolve, naming it', () => {
    const error = refusal(() =>
      bindWith({ requiredArtifactIds: ['no-such-id'], resolvedExpectedArtifacts: expected }),
    );
    expect(error.path).toBe('requiredArtifactIds[0]');
    expect(error.message).toContain("'no-such-id'");
    expect(refusal(() => bindWith({ requiredArtifactIds: ['no-such-id'] })).path).toBe(
      'requiredArtifactIds[0]',
    );
  });

  it('take ids as already resolved when Orca sent them with the artifacts they resolved to', () => {
    const result = bindWith({ requiredArtifactIds: [expected[0]?.id], requiredArtifacts: [alpine('3.15')] });
    expect(imageOf(result.manifests[0])).toBe(`${IMAGE}:3.15`);
  });
});
