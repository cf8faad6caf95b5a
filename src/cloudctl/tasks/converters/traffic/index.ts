// Traffic management: which Services a workload takes traffic from, the label patches that enable or
// disable it, and (for deploys) the annotation, the labels and the strategy's follow-up plan.

export { objectLabelPatch, type TrafficAction, templateLabelPatch } from './label-patches.ts';
export {
  annotatedLoadBalancers,
  LOAD_BALANCERS_ANNOTATION,
  parseLoadBalancer,
  type ServiceRef,
  serviceSelector,
} from './load-balancers.ts';
