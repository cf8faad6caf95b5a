// A task's result objects are documented (TaskResultObject in GET /task/{id}'s answer) rather than
// free-form: what each converter reports for an agent's answer is an object the schema describes,
// field for field (checked strictly here; the cluster tests check served answers against the document).
import { describe, expect, it } from 'vitest';
import {
  type AgentStep,
  CONVERTERS,
  type ConverterContext,
  taskResultObjectSchema,
} from '../../../src/cloudctl/tasks/converters/index.ts';
import type { OperationResult } from '../../../src/contract/index.ts';

/** Enough of an account for single-object operations: every kind is a Deployment. */
const context: ConverterContext = {
  kinds: { resolve: async () => ({ apiVersion: 'apps/v1', kind: 'Deployment' }) },
  cluster: {
    describe: () => Promise.reject(new Error('not read')),
    list: () => Promise.reject(new Error('not read')),
  },
  cache: { object: async () => undefined, podsOf: async () => [] },
};

const converter = (name: string) => {
  const found = CONVERTERS.find((c) => c.name === name);
  if (found === undefined) throw new Error(`no converter ${name}`);
  return found;
};

/** What a converter reports for the agent's answer to its step, checked to hold no field the schema lacks. */
async function reported<T extends AgentStep['type']>(
  name: string,
  input: Record<string, unknown>,
  answer: OperationResult<T>,
  given?: AgentStep,
) {
  const payload = converter(name).payload.parse(input);
  const [step] = given === undefined ? await converter(name).toAgent(payload, context) : [given];
  if (step === undefined) throw new Error(`${name} made no step`);
  const result = converter(name).resultObject(payload, step, answer);
  const strict = taskResultObjectSchema.strict().safeParse(result);
  expect(strict.error?.issues ?? []).toEqual([]);
  return result;
}

const target = { account: 'prod', manifestName: 'deployment web', location: 'shop' };
const web = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' } };

describe('task result objects', () => {
  it('deploy reports the manifests, their names by namespace and the artifacts, as documented', async () => {
    const step: AgentStep = {
      account: 'prod',
      type: 'deploy',
      payload: { manifests: [web] },
      details: { boundArtifacts: [], createdArtifacts: [{ type: 'orchestrator/deployment', name: 'web' }] },
    };
    const applied = [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'web',
        namespace: 'shop',
        mode: 'server-side' as const,
        uid: 'u',
        resourceVersion: '1',
      },
    ];
    const result = await reported('deployManifest', { account: 'prod', manifests: [web] }, { applied }, step);
    expect(result).toMatchObject({
      manifestNamesByNamespace: { shop: ['deployment web'] },
      createdArtifacts: [{ type: 'orchestrator/deployment', name: 'web' }],
    });
  });

  it('delete, patch (whose object is gone) and runJob report only documented fields', async () => {
    expect(await reported('deleteManifest', target, { deleted: true, gone: true })).toMatchObject({
      manifestNamesByNamespace: { shop: ['deployment web'] },
    });
    const patch = { ...target, patchBody: {}, options: { mergeStrategy: 'merge' } };
    expect(await reported('patchManifest', patch, { object: null, gone: true })).toMatchObject({
      manifests: [],
    });
    const job = {
      account: 'prod',
      namespace: 'shop',
      manifest: { apiVersion: 'batch/v1', kind: 'Job', metadata: {} },
    };
    const ran = {
      namespace: 'shop',
      name: 'job-x',
      outcome: 'Complete' as const,
      pods: [{ name: 'job-x-1', logs: { c: 'ok' } }],
    };
    expect(await reported('runJob', job, ran)).toMatchObject({
      deployedNamesByLocation: { shop: ['job job-x'] },
      jobOutcome: 'Complete',
    });
  });
});
