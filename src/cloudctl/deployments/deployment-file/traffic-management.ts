// `trafficManagement`, as the original product writes it: per list of targets (absent: every target),
// the traffic managers a strategy steers. `smi` and `istio` carry a canary's weights to a service
// mesh (a TrafficSplit, or a VirtualService with a DestinationRule's subsets); `kubernetes` names a
// blue/green strategy's active and preview Services. Names across sections (targets, which strategy
// a manager fits) are checked by traffic-references.ts on the raw file; what one target gets is
// trafficOf below, so the run never reads the list itself.
import { z } from 'zod';
import { serviceName } from './blue-green-strategy.ts';
import type { Strategy } from './strategy.ts';

/** A Kubernetes object name (RFC 1123 subdomain), for the mesh's own objects. */
const objectName = z
  .string()
  .regex(
    /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/,
    'expected an object name (lower case letters, digits, - and .)',
  );

export const smiEntrySchema = z.strictObject({
  /** The Service clients call: the TrafficSplit's `spec.service`. */
  rootServiceName: serviceName.refine(
    (name) => name.length <= 56,
    'at most 56 characters: cloudctl names Services <root>-stable and <root>-canary after it, and a Service name has 63 at most',
  ),
  /** Absent: `<root>-canary`, made by cloudctl. */
  canaryServiceName: serviceName.optional(),
  /** Absent: `<root>`. */
  trafficSplitName: objectName.optional(),
});
export type SmiEntry = z.output<typeof smiEntrySchema>;

export const istioEntrySchema = z.strictObject({
  virtualService: z.strictObject({
    name: objectName,
    /** Absent: the VirtualService must have exactly one http route. */
    httpRouteName: z.string().min(1).optional(),
  }),
  destinationRule: z.strictObject({
    name: objectName,
    activeSubsetName: z.string().min(1),
    /** Absent: `canary`. */
    canarySubsetName: z.string().min(1).default('canary'),
  }),
});
export type IstioEntry = z.output<typeof istioEntrySchema>;

export const kubernetesEntrySchema = z
  .strictObject({ activeService: serviceName, previewService: serviceName.optional() })
  .superRefine((entry, ctx) => {
    if (entry.previewService === entry.activeService)
      ctx.addIssue({
        code: 'custom',
        path: ['previewService'],
        message: `previewService must differ from activeService ('${entry.activeService}')`,
      });
  });
export type KubernetesEntry = z.output<typeof kubernetesEntrySchema>;

export const TRAFFIC_MANAGERS = ['smi', 'istio', 'kubernetes'] as const;

export const trafficManagementEntrySchema = z
  .strictObject({
    targets: z.array(z.string().min(1)).min(1).optional(),
    smi: z.array(smiEntrySchema).min(1).optional(),
    istio: z.array(istioEntrySchema).min(1).optional(),
    kubernetes: z.array(kubernetesEntrySchema).min(1).max(1, 'a target has one active Service').optional(),
  })
  .superRefine((entry, ctx) => {
    if (TRAFFIC_MANAGERS.every((m) => entry[m] === undefined))
      ctx.addIssue({
        code: 'custom',
        params: { oneOfKeys: 0 },
        message: `a trafficManagement entry needs one of ${TRAFFIC_MANAGERS.map((m) => `'${m}'`).join(', ')}, found none`,
      });
  });
export type TrafficManagementEntry = z.output<typeof trafficManagementEntrySchema>;

/** What steers one target's traffic: every entry that names it (or names no target) put together. */
export interface TargetTraffic {
  smi: SmiEntry[];
  istio: IstioEntry[];
  kubernetes: KubernetesEntry | undefined;
}

/** What of a deployment file these answers read (the whole file is one; the schema imports this file). */
export interface TrafficFile {
  targets: Readonly<Record<string, { strategy: string }>>;
  strategies: Readonly<Record<string, Strategy>>;
  trafficManagement: readonly TrafficManagementEntry[];
}

export function trafficOf(file: TrafficFile, targetName: string): TargetTraffic {
  const entries = file.trafficManagement.filter(
    (e) => e.targets === undefined || e.targets.includes(targetName),
  );
  return {
    smi: entries.flatMap((e) => e.smi ?? []),
    istio: entries.flatMap((e) => e.istio ?? []),
    kubernetes: entries.flatMap((e) => e.kubernetes ?? [])[0],
  };
}

/** Whether a canary's weights go to a mesh for this target (then replicas no longer carry them). */
export function meshManaged(traffic: TargetTraffic): boolean {
  return traffic.smi.length > 0 || traffic.istio.length > 0;
}

/**
 * A blue/green target's Services: the strategy's own, or its trafficManagement `kubernetes` entry's
 * (the load refuses the two naming different ones, and a target with neither).
 */
export function blueGreenServices(
  file: TrafficFile,
  targetName: string,
): { activeService: string; previewService?: string } | undefined {
  const target = file.targets[targetName];
  const strategy = target === undefined ? undefined : file.strategies[target.strategy];
  if (strategy === undefined || !('blueGreen' in strategy)) return undefined;
  const entry = trafficOf(file, targetName).kubernetes;
  const activeService = strategy.blueGreen.activeService ?? entry?.activeService;
  if (activeService === undefined) return undefined;
  const previewService = strategy.blueGreen.previewService ?? entry?.previewService;
  return { activeService, ...(previewService === undefined ? {} : { previewService }) };
}
