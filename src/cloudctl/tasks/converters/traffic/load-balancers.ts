// The Services a workload takes traffic from, as Spinnaker writes them: the annotation
// `traffic.spinnaker.io/load-balancers` holds a JSON list of "<kind> <name>" strings, and only
// `service` names a load balancer the orchestrator's Kubernetes provider can attach pods to.
import { isRecord } from '../../../../lib/is-record.ts';
import { PayloadError } from '../converter.ts';

export const LOAD_BALANCERS_ANNOTATION = 'traffic.spinnaker.io/load-balancers';

/** A Service named by a load balancer reference, in the workload's namespace. */
export interface ServiceRef {
  /** The reference as written ("service web"), for messages and the annotation. */
  reference: string;
  name: string;
}

/** "service web" as a Service reference; anything else is refused (`path` names the field). */
export function parseLoadBalancer(reference: string, path: string): ServiceRef {
  const parts = reference.trim().split(/\s+/);
  const [kind = '', name = ''] = parts;
  if (parts.length !== 2 || name === '') {
    throw new PayloadError(
      path,
      `'${reference}' is not a load balancer: write '<kind> <name>', as 'service web'`,
    );
  }
  if (kind.toLowerCase() !== 'service') {
    throw new PayloadError(path, `'${reference}' is not a Service: only Services can send traffic to pods`);
  }
  return { reference: `service ${name}`, name };
}

/** The load balancers the object's annotation names; [] without it; 400 when it is not a list. */
export function annotatedLoadBalancers(object: Record<string, unknown>, path: string): string[] {
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const annotations = isRecord(metadata.annotations) ? metadata.annotations : {};
  const value = annotations[LOAD_BALANCERS_ANNOTATION];
  if (value === undefined) return [];
  let parsed: unknown;
  try {
    parsed = typeof value === 'string' ? JSON.parse(value) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || !parsed.every((v) => typeof v === 'string')) {
    throw new PayloadError(
      path,
      `annotation ${LOAD_BALANCERS_ANNOTATION} must be a JSON list of strings, as '["service web"]'`,
    );
  }
  return parsed;
}

/** A Service's `spec.selector` as a label map; {} when it has none. */
export function serviceSelector(service: Record<string, unknown>): Record<string, string> {
  const spec = isRecord(service.spec) ? service.spec : {};
  const selector = isRecord(spec.selector) ? spec.selector : {};
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(selector)) if (typeof value === 'string') out[key] = value;
  return out;
}
