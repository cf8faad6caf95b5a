// deployManifest: apply manifests to an account's cluster (the agent's `deploy`), prepared as
// Spinnaker's Kubernetes provider prepares them (deploy-plan.ts). The task's result names what was
// deployed where, as the agent placed it, and the artifacts it created (versions included), with
// Secret values blanked.
import type { OperationPayload } from '../../../../contract/index.ts';
import { isRecord } from '../../../../lib/is-record.ts';
import { scrubObject } from '../../../../lib/object-scrub.ts';
import { artifactResult, storedArtifactResult } from '../artifacts/index.ts';
import { type AgentResult, type AgentStep, defineConverter } from '../converter.ts';
import { namesByNamespace } from '../manifest-name.ts';
import { planDeploy } from './deploy-plan.ts';
import { deployRequestSchema } from './deploy-request.ts';

/** The agent's `applied` list (namespaces as it placed them); the sent manifests before it answers. */
function deployedObjects(step: AgentStep, agentResult: AgentResult | undefined): Record<string, unknown>[] {
  const manifests = step.type === 'deploy' ? step.payload.manifests.filter(isRecord) : [];
  const applied = agentResult !== undefined && 'applied' in agentResult ? agentResult.applied : [];
  return manifests.map((manifest) => {
    const metadata = isRecord(manifest.metadata) ? manifest.metadata : {};
    // The agent applies in its own order (namespaces and CRDs first): match by kind and name.
    const placed = applied.find((a) => a.kind === manifest.kind && a.name === metadata.name);
    if (placed?.namespace === undefined) return manifest;
    return { ...manifest, metadata: { ...metadata, namespace: placed.namespace } };
  });
}

export const deployManifest = defineConverter({
  name: 'deployManifest',
  phase: 'DEPLOY_ORCHESTRATOR_MANIFEST',
  payload: deployRequestSchema,
  describe: (p) => `Deploying manifests to account ${p.account}`,
  toAgent: async (payload, context) => {
    const plan = await planDeploy(payload, context);
    if (plan.manifests.length === 0) {
      // Label selectors left nothing and that was allowed: a read confirms the account, changes nothing.
      return [{ account: payload.account, type: 'describeAccount', payload: {} }];
    }
    return [
      {
        account: payload.account,
        type: 'deploy',
        payload: { manifests: plan.manifests } satisfies OperationPayload<'deploy'>,
        details: artifactResult(plan),
      },
    ];
  },
  resultObject: (_payload, step, agentResult) => {
    // Secret values stay out of results anyone with READ sees (clouddriver's removeSensitiveKeys).
    const manifests = step.type === 'deploy' ? deployedObjects(step, agentResult).map(scrubObject) : [];
    return {
      manifestNamesByNamespace: namesByNamespace(manifests),
      manifests,
      ...(step.type === 'deploy'
        ? storedArtifactResult(step.details)
        : { boundArtifacts: [], createdArtifacts: [] }),
    };
  },
});
