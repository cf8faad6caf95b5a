// Operations sent as a Spinnaker client sends them: `POST /orchestrator/ops/{name}` starts a task,
// `GET /task/{id}` is followed until the task ends. The time a benchmark reads is the client's:
// the task's start, its agent operation, and up to one poll interval before the end is seen.
import { z } from 'zod';
import type { CloudctlProcess } from './cloudctl-process.ts';

const startedSchema = z.object({ id: z.string() });
const taskSchema = z.object({
  status: z.object({ completed: z.boolean(), failed: z.boolean() }),
  history: z.array(z.object({ phase: z.string(), status: z.string() })),
});

export interface TaskOutcome {
  outcome: 'succeeded' | 'failed';
  /** The task's last history entry when it failed. */
  error: string | null;
}

/** Runs one operation as a task and follows it every `pollMs` until it ends. */
export async function runTask(
  cloudctl: CloudctlProcess,
  name: string,
  payload: Record<string, unknown>,
  pollMs: number,
): Promise<TaskOutcome> {
  const { id } = await cloudctl.request('POST', `/orchestrator/ops/${name}`, startedSchema, payload);
  for (;;) {
    const task = await cloudctl.request('GET', `/task/${encodeURIComponent(id)}`, taskSchema);
    if (task.status.completed) {
      if (!task.status.failed) return { outcome: 'succeeded', error: null };
      const last = task.history.at(-1);
      return {
        outcome: 'failed',
        error: last === undefined ? 'no history' : `${last.phase}: ${last.status}`,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
