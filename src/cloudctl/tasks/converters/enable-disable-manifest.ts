// enableManifest and disableManifest: put a ReplicaSet's pods behind the Services it names, or take
// them out, by its pod template's labels and each pod's (the agent's `patch`, one step for the
// template, then one per pod). The Services are the payload's `loadBalancers`, else those of the
// ReplicaSet's `traffic.spinnaker.io/load-balancers` annotation. The template goes first, so a pod
// the ReplicaSet creates meanwhile is born in the new state; pods are those the cache knows when the
// request arrives, and one gone by the time its patch runs needs none.
import { z } from 'zod';
import type { OperationPayload } from '../../../contract/index.ts';
import { isRecord } from '../../../lib/is-record.ts';
import { type AgentStep, type ConverterContext, defineConverter, PayloadError } from './converter.ts';
import { splitManifestName, targetFields } from './manifest-name.ts';
import {
  annotatedLoadBalancers,
  LOAD_BALANCERS_ANNOTATION,
  objectLabelPatch,
  parseLoadBalancer,
  serviceSelector,
  type TrafficAction,
  templateLabelPatch,
} from './traffic/index.ts';

const enableDisablePayload = z.looseObject({
  ...targetFields,
  loadBalancers: z
    .array(z.string().min(1))
    .optional()
    .describe("Services as 'service <name>'; the target's load-balancers annotation when absent or empty"),
  targetPercentage: z
    .number()
    .refine((p) => p === 100, 'only 100 is supported: every pod is enabled or disabled')
    .optional(),
  app: z.string().optional(),
});

export interface TrafficTarget {
  account: string;
  /** The namespace of the ReplicaSet and its Services. */
  namespace: string;
  /** The ReplicaSet's name. */
  name: string;
  /** Services as "service <name>"; the ReplicaSet's annotation when undefined or empty. */
  loadBalancers?: readonly string[] | undefined;
}

/** The labels of every named Service's selector, one map; 400 when two disagree on a value. */
async function selectorLabels(
  target: TrafficTarget,
  references: readonly string[],
  path: string,
  context: ConverterContext,
): Promise<Record<string, string>> {
  const labels: Record<string, string> = {};
  for (const reference of references) {
    const { name } = parseLoadBalancer(reference, path);
    const service = await context.cache.object(target.account, 'service', target.namespace, name);
    if (service === undefined) {
      throw new PayloadError(path, `service ${name} not found in namespace ${target.namespace}`);
    }
    const selector = serviceSelector(service);
    if (Object.keys(selector).length === 0) {
      throw new PayloadError(path, `service ${name} has no selector: it sends traffic to no pods by label`);
    }
    for (const [key, value] of Object.entries(selector)) {
      if (labels[key] !== undefined && labels[key] !== value) {
        throw new PayloadError(path, `the Services disagree on label ${key} ('${labels[key]}', '${value}')`);
      }
      labels[key] = value;
    }
  }
  return labels;
}

/** The ReplicaSet's own selector labels: removing one would orphan its pods. */
function ownSelectorKeys(replicaSet: Record<string, unknown>): Set<string> {
  const spec = isRecord(replicaSet.spec) ? replicaSet.spec : {};
  const selector = isRecord(spec.selector) ? spec.selector : {};
  return new Set(Object.keys(isRecord(selector.matchLabels) ? selector.matchLabels : {}));
}

/**
 * The agent steps that enable or disable a ReplicaSet: its template, then each of its pods. Throws
 * PayloadError (a 400) when the ReplicaSet, a Service or any load balancer is missing.
 */
export async function trafficSteps(
  action: TrafficAction,
  target: TrafficTarget,
  context: ConverterContext,
): Promise<AgentStep[]> {
  const { account, namespace, name } = target;
  const replicaSet = await context.cache.object(account, 'replicaSet', namespace, name);
  if (replicaSet === undefined) {
    throw new PayloadError('manifestName', `replicaSet ${name} not found in namespace ${namespace}`);
  }
  const given = target.loadBalancers ?? [];
  const references = given.length > 0 ? given : annotatedLoadBalancers(replicaSet, 'manifestName');
  const path = given.length > 0 ? 'loadBalancers' : 'manifestName';
  if (references.length === 0) {
    throw new PayloadError(
      'loadBalancers',
      `none given, and replicaSet ${name} has no ${LOAD_BALANCERS_ANNOTATION} annotation: no Service to ${action} it in`,
    );
  }
  const labels = await selectorLabels(target, references, path, context);
  const orphaning = Object.keys(labels).filter((key) => ownSelectorKeys(replicaSet).has(key));
  if (action === 'disable' && orphaning.length > 0) {
    throw new PayloadError(
      path,
      `replicaSet ${name} selects its pods by ${orphaning.join(', ')}: removing it would orphan them`,
    );
  }
  const services = references.join(', ');
  const verb = action === 'enable' ? 'Enabling' : 'Disabling';
  const patch = (kind: 'ReplicaSet' | 'Pod', object: string, body: Record<string, unknown>): AgentStep => ({
    account,
    type: 'patch',
    description: `${verb} ${kind === 'Pod' ? 'pod' : 'replicaSet'} ${object} in ${services}`,
    payload: {
      apiVersion: kind === 'Pod' ? 'v1' : 'apps/v1',
      kind,
      namespace,
      name: object,
      patchType: 'merge',
      patch: body,
      ignoreNotFound: kind === 'Pod',
    } satisfies OperationPayload<'patch'>,
  });
  const pods = await context.cache.podsOf(account, namespace, 'replicaSet', name);
  return [
    patch('ReplicaSet', name, templateLabelPatch(action, labels)),
    ...pods.map((pod) => patch('Pod', pod.name, objectLabelPatch(action, labels))),
  ];
}

function enableOrDisable(action: TrafficAction) {
  const verb = action === 'enable' ? 'Enabling' : 'Disabling';
  return defineConverter({
    name: `${action}Manifest`,
    phase: `${action.toUpperCase()}_MANIFEST`,
    payload: enableDisablePayload,
    describe: (p) => `${verb} ${p.manifestName} in account ${p.account}`,
    toAgent: async (payload, context) => {
      const { kind, name } = splitManifestName(payload.manifestName);
      if (kind.toLowerCase() !== 'replicaset') {
        throw new PayloadError('manifestName', `a ${kind} cannot be ${action}d: name a replicaSet`);
      }
      if (payload.location === '')
        throw new PayloadError('location', 'required: the namespace of the object');
      const target = { account: payload.account, namespace: payload.location, name };
      return trafficSteps(action, { ...target, loadBalancers: payload.loadBalancers }, context);
    },
    // As in the API we mirror, enable and disable report no result object.
    resultObject: () => undefined,
  });
}

export const enableManifest = enableOrDisable('enable');
export const disableManifest = enableOrDisable('disable');
