// What the built-in analysis reads of one version: its pods as the agent lists them, reduced to the
// facts the measures need (ready or not, restarts, containers crash-looping or OOM-killed, with the
// pod and container named so a verdict can say where). Pure: the step reads, this only looks.
import { z } from 'zod';

const containerStatusSchema = z.object({
  name: z.string(),
  restartCount: z.number().default(0),
  state: z.object({ waiting: z.object({ reason: z.string().optional() }).optional() }).optional(),
  lastState: z.object({ terminated: z.object({ reason: z.string().optional() }).optional() }).optional(),
});

const podSchema = z.object({
  metadata: z.object({ name: z.string(), uid: z.string().optional() }),
  status: z
    .object({
      conditions: z.array(z.object({ type: z.string(), status: z.string() })).default([]),
      containerStatuses: z.array(containerStatusSchema).default([]),
    })
    .prefault({}),
});

export interface PodHealth {
  name: string;
  ready: boolean;
  restarts: number;
  /** `pod/container` of each container waiting in CrashLoopBackOff. */
  crashLooping: string[];
  /** `pod/container` of each container whose last end was OOMKilled. */
  oomKilled: string[];
}

/** The pods of a list answer, each reduced to its health; items that are no pods are left out. */
export function podHealth(items: readonly unknown[]): PodHealth[] {
  return items.flatMap((item) => {
    const parsed = podSchema.safeParse(item);
    if (!parsed.success) return [];
    const { metadata, status } = parsed.data;
    const where = (c: { name: string }) => `${metadata.name}/${c.name}`;
    return [
      {
        name: metadata.name,
        ready: status.conditions.some((c) => c.type === 'Ready' && c.status === 'True'),
        restarts: status.containerStatuses.reduce((sum, c) => sum + c.restartCount, 0),
        crashLooping: status.containerStatuses
          .filter((c) => c.state?.waiting?.reason === 'CrashLoopBackOff')
          .map(where),
        oomKilled: status.containerStatuses
          .filter((c) => c.lastState?.terminated?.reason === 'OOMKilled')
          .map(where),
      },
    ];
  });
}
