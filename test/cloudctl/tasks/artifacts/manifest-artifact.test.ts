// `source: artifact` manifests: an embedded/base64 artifact's reference is the YAML, given inline or
// by expected-artifact id; every other artifact type is refused, naming the type.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  deployArtifactFields,
  readManifestArtifact,
} from '../../../../src/cloudctl/tasks/converters/artifacts/index.ts';
import { PayloadError } from '../../../../src/cloudctl/tasks/converters/index.ts';

const fields = (input: Record<string, unknown>) => z.object(deployArtifactFields).parse(input);
/** What a deploy checks each manifest with, in short. */
const manifestSchema = z.looseObject({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  metadata: z.looseObject({ name: z.string().min(1) }),
});
const readManifests = (input: ReturnType<typeof fields>) => readManifestArtifact(input, manifestSchema);
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

const YAML = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations:
    built: 2026-11-26T10:00:00Z
data:
  level: info
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
        - name: web
          image: registry.example/web
---
`;

const embedded = (reference: string, extra: Record<string, unknown> = {}) => ({
  type: 'embedded/base64',
  name: 'web-manifests',
  reference,
  artifactAccount: 'embedded-artifact',
  ...extra,
});

function refusal(run: () => unknown): PayloadError {
  try {
    run();
  } catch (error) {
    if (error instanceof PayloadError) return error;
    throw error;
  }
  throw new Error('expected a PayloadError');
}

describe('the manifest artifact', () => {
  it('is the YAML stream of an embedded/base64 artifact, dates kept as text', () => {
    const manifests = readManifests(fields({ manifestArtifact: embedded(base64(YAML)) }));
    expect(manifests).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'settings', annotations: { built: '2026-11-26T10:00:00Z' } },
        data: { level: 'info' },
      },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web' },
        spec: { template: { spec: { containers: [{ name: 'web', image: 'registry.example/web' }] } } },
      },
    ]);
  });

  it('may be a YAML list, and may be remote/base64', () => {
    const list =
      '- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n';
    const manifests = readManifests(
      fields({ manifestArtifact: embedded(base64(list), { type: 'remote/base64' }) }),
    );
    expect(manifests).toHaveLength(2);
  });

  it('is found by manifestArtifactId among the resolved expected artifacts', () => {
    const input = {
      manifestArtifactId: 'a1f0',
      resolvedExpectedArtifacts: [
        { id: 'a1f0', boundArtifact: embedded(base64(YAML), { artifactAccount: null }) },
      ],
      manifestArtifactAccount: 'embedded-artifact',
    };
    expect(readManifests(fields(input))).toHaveLength(2);
    const missing = refusal(() => readManifests(fields({ ...input, manifestArtifactId: 'zz' })));
    expect(missing.path).toBe('manifestArtifactId');
  });

  it('refuses other artifact types, naming the type', () => {
    const github = {
      type: 'github/file',
      name: 'manifests/web.yaml',
      reference: 'https://api.github.com/repos/o/r/contents/manifests/web.yaml',
    };
    const error = refusal(() => readManifests(fields({ manifestArtifact: github })));
    expect(error.path).toBe('manifestArtifact.type');
    expect(error.message).toContain("'github/file'");
  });

  it('refuses an unknown artifact account, bad base64, YAML that is not manifests, and no artifact', () => {
    const account = refusal(() =>
      readManifests(fields({ manifestArtifact: embedded(base64(YAML), { artifactAccount: 'gitrepo' }) })),
    );
    expect(account.path).toBe('manifestArtifact.artifactAccount');
    expect(refusal(() => readManifests(fields({ manifestArtifact: embedded('not base64!') }))).path).toBe(
      'manifestArtifact.reference',
    );
    const scalar = refusal(() =>
      readManifests(fields({ manifestArtifact: embedded(base64('just text\n')) })),
    );
    expect(scalar.message).toBe('manifest 1 is not an object');
    const empty = refusal(() => readManifests(fields({ manifestArtifact: embedded(base64('---\n')) })));
    expect(empty.message).toBe('holds no manifest');
    const nameless = refusal(() =>
      readManifests(
        fields({ manifestArtifact: embedded(base64('apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n')) }),
      ),
    );
    expect(nameless.path).toBe('manifestArtifact.reference');
    expect(nameless.message).toMatch(/^manifest 1 at metadata\.name: /);
    expect(refusal(() => readManifests(fields({}))).path).toBe('manifestArtifact');
  });

  it('refuses pipeline expressions unless told to deploy them as written', () => {
    const withExpression = YAML.replace('level: info', `level: ${'$'}{trigger.parameters.level}`);
    const manifestArtifact = embedded(base64(withExpression));
    expect(refusal(() => readManifests(fields({ manifestArtifact }))).message).toContain(
      'skipExpressionEvaluation',
    );
    const kept = readManifests(fields({ manifestArtifact, skipExpressionEvaluation: true }));
    expect(kept[0]).toMatchObject({ data: { level: `${'$'}{trigger.parameters.level}` } });
  });
});
