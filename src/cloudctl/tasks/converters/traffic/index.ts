// Traffic management: which Services a workload takes traffic from, the label patches that enable or
// disable it, and for deploys the annotation, the template labels and the strategy's follow-up plan.
export {
  applyTrafficManagement,
  servicesToLookUp,
  type TrafficManifest,
  type TrafficResult,
} from './apply-traffic.ts';
export { type FollowUpPlan, planFor } from './follow-up.ts';
export { objectLabelPatch, type TrafficAction, templateLabelPatch } from './label-patches.ts';
export {
  annotatedLoadBalancers,
  LOAD_BALANCERS_ANNOTATION,
  parseLoadBalancer,
  type ServiceRef,
  serviceSelector,
} from './load-balancers.ts';
export {
  STRATEGIES,
  type TrafficFields,
  type TrafficManagement,
  type TrafficStrategy,
  trafficFields,
  trafficManagementOf,
} from './traffic-request.ts';
