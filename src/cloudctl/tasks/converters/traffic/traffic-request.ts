// What a deploy asks of traffic management, read from the two places clients write it. clouddriver
// reads the flat fields `services`, `enableTraffic` (default true) and `strategy` (RED_BLACK,
// BLUE_GREEN, HIGHLANDER, NONE); Orca sends those and also its stage's `trafficManagement` block
// ({enabled, options: {services, enableTraffic, strategy: redblack|bluegreen|highlander|none}}).
// A flat field wins where given; the block fills in what is missing when it is enabled.
import { z } from 'zod';

/** The strategies, as Orca spells them; bluegreen is redblack under another name (clouddriver's isBlueGreen). */
export const STRATEGIES = ['redblack', 'highlander', 'none'] as const;
export type TrafficStrategy = (typeof STRATEGIES)[number];

const STRATEGY_NAMES: Record<string, TrafficStrategy> = {
  redblack: 'redblack',
  red_black: 'redblack',
  bluegreen: 'redblack',
  blue_green: 'redblack',
  highlander: 'highlander',
  none: 'none',
};

const strategySchema = z.string().transform((s, ctx) => {
  const strategy = STRATEGY_NAMES[s.toLowerCase()];
  if (strategy === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `unknown strategy '${s}': use redblack (RED_BLACK, BLUE_GREEN), highlander or none`,
    });
    return z.NEVER;
  }
  return strategy;
});

/** The traffic fields of a deploy payload; spread into its schema. */
export const trafficFields = {
  services: z.array(z.string().min(1)).optional().describe("Services as 'service <name>'"),
  enableTraffic: z.boolean().optional().describe("add the Services' selector labels to pod templates"),
  strategy: strategySchema.optional(),
  trafficManagement: z
    .looseObject({
      enabled: z.boolean().default(false),
      options: z
        .looseObject({
          services: z.array(z.string().min(1)).optional(),
          enableTraffic: z.boolean().optional(),
          strategy: strategySchema.optional(),
          namespace: z.string().optional(),
        })
        .default({}),
    })
    .optional(),
};

const trafficFieldsSchema = z.object(trafficFields);
export type TrafficFields = z.output<typeof trafficFieldsSchema>;

/** A deploy's traffic management, both spellings settled. */
export interface TrafficManagement {
  /** Services to annotate the workload with; empty: each workload keeps its own annotation. */
  services: string[];
  /** Whether the Services' selector labels go into the pod template (the workload starts enabled). */
  enableTraffic: boolean;
  strategy: TrafficStrategy;
  /** Whether the request asked for traffic management (the block enabled, or services given). */
  enabled: boolean;
}

/** The traffic management a deploy payload asks for. */
export function trafficManagementOf(fields: TrafficFields): TrafficManagement {
  const block = fields.trafficManagement?.enabled ? fields.trafficManagement.options : undefined;
  const services = fields.services?.length ? fields.services : (block?.services ?? []);
  return {
    services,
    enableTraffic: fields.enableTraffic ?? block?.enableTraffic ?? true,
    strategy: fields.strategy ?? block?.strategy ?? 'none',
    enabled: block !== undefined || services.length > 0,
  };
}
