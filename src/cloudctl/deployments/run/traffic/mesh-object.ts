// How traffic objects are written: each as a server-side apply through the agent's `deploy`
// operation, with force, so cloudctl (through the agent's field manager) owns exactly the fields it
// sets (a split's backends, a route's destinations, a subset's labels, a Service's selector) and the
// user's other fields stay theirs. The annotation asks for server-side apply where the agent's
// policy leaves it to the manifest (`serverSideApply.enabled: allowed`, the default); the deployment
// annotations say which application and target last steered the object.
import { isRecord } from '../../../../lib/is-record.ts';
import type { WriteCall } from '../deployment-planner.ts';
import { ANNOTATIONS } from '../versioned-manifests.ts';
import type { ObjectRef, TrafficTarget } from './traffic-position.ts';

/** The agent's per-manifest switch to server-side apply (src/agent/operations/apply/apply-policy.ts). */
const SERVER_SIDE_APPLY = 'agent-orch.vendor.io/serverside-apply';

export function applyCall(target: TrafficTarget, ref: ObjectRef, spec: Record<string, unknown>): WriteCall {
  const { apiVersion, kind, namespace, name } = ref;
  const annotations = {
    [SERVER_SIDE_APPLY]: 'enabled',
    [ANNOTATIONS.application]: target.application,
    [ANNOTATIONS.environment]: target.name,
  };
  return {
    type: 'deploy',
    payload: {
      manifests: [{ apiVersion, kind, metadata: { name, namespace, annotations }, spec }],
      force: true,
    },
  };
}

export function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

export function stringMap(value: unknown): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record(value)).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
}
