// A task as clients of the API we mirror read it (clouddriver's Task): a status with both
// `complete` and `completed` (older clients read the first), history of {phase, status}, and the
// result objects. `ownerId` names the replica that runs the task, or ran it last (GET
// /{provider}/task/{id}/owner); `user` who submitted the task.
import { z } from 'zod';
import { taskResultObjectSchema } from './converters/index.ts';
import type { TaskSummary } from './task-store.ts';

export const taskStatusSchema = z.object({
  phase: z.string(),
  status: z.string(),
  complete: z.boolean(),
  completed: z.boolean(),
  failed: z.boolean(),
  retryable: z.boolean(),
});

export const taskSchema = z
  .object({
    id: z.string(),
    requestId: z.string().nullable(),
    ownerId: z.string(),
    user: z.string(),
    startTimeMs: z.int(),
    status: taskStatusSchema,
    history: z.array(z.object({ phase: z.string(), status: z.string() })),
    resultObjects: z
      .array(taskResultObjectSchema)
      .describe("what the operations report: what Orca's deploy, delete, patch and run job stages read"),
    sagaIds: z.array(z.unknown()),
    outputs: z.array(z.unknown()),
    retryable: z.boolean(),
  })
  .describe('Task');

export type TaskView = z.infer<typeof taskSchema>;

/**
 * A stored result object as documented. Converters build them to the schema (the compiler checks);
 * one the schema does not describe (stored by an older cloudctl) is left out rather than answered
 * against the document.
 */
function asResultObject(stored: unknown) {
  const parsed = taskResultObjectSchema.safeParse(stored);
  return parsed.success ? [parsed.data] : [];
}

export function taskView(task: TaskSummary): TaskView {
  const last = task.history.at(-1) ?? { phase: 'ORCHESTRATION', status: '' };
  const done = task.state !== 'STARTED';
  // A failure a restart may mend (Orca resumes such a task: POST /task/{id}:resume).
  const retryable = task.state === 'FAILED' && task.retryable;
  return {
    id: task.id,
    requestId: task.requestId,
    ownerId: task.owner,
    user: task.user,
    startTimeMs: task.createdAt.getTime(),
    status: {
      phase: last.phase,
      status: last.status,
      complete: done,
      completed: done,
      failed: task.state === 'FAILED',
      retryable,
    },
    history: task.history,
    resultObjects: task.resultObjects.flatMap(asResultObject),
    sagaIds: [],
    outputs: [],
    retryable,
  };
}
