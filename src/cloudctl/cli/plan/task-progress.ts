// Following the task an applied plan started (GET /task/{id}) until it ends, printing each new entry
// of its history ({phase, status}) as it comes and the verdict: exit 0 only when it succeeded.
import { z } from 'zod';
import type { CliIo } from '../../../lib/cli-io.ts';
import { EXIT } from '../../../lib/command-line.ts';
import { type ApiClient, followRecord } from '../client/index.ts';

/** The fields of GET /task/{id} (the Task of the API document) this follower reads. */
const taskSchema = z.looseObject({
  id: z.string(),
  status: z.looseObject({
    phase: z.string(),
    status: z.string(),
    completed: z.boolean(),
    failed: z.boolean(),
  }),
  history: z.array(z.object({ phase: z.string(), status: z.string() })),
});
type Task = z.infer<typeof taskSchema>;

function historyPrinter(io: CliIo) {
  let printed = 0;
  return (task: Task): void => {
    for (const entry of task.history.slice(printed)) io.out(`[${entry.phase}] ${entry.status}`);
    printed = Math.max(printed, task.history.length);
  };
}

export async function followTask(id: string, client: ApiClient, io: CliIo, pollMs: number): Promise<number> {
  const path = `/task/${encodeURIComponent(id)}`;
  const current = await followRecord(client, io, {
    first: await client.get(path, taskSchema),
    query: { events: 'task' },
    event: 'task',
    fromEvent: (data) => {
      const parsed = z.looseObject({ task: taskSchema }).safeParse(data);
      return parsed.success && parsed.data.task.id === id ? parsed.data.task : undefined;
    },
    read: async () => {
      const answer = await client.send('GET', path).catch(() => undefined);
      return answer?.status === 200 ? taskSchema.parse(answer.json) : undefined;
    },
    // History only grows, and a finished task does not start again: anything else is an older state.
    newer: (next, seen) =>
      next.history.length >= seen.history.length && (next.status.completed || !seen.status.completed),
    ended: (task) => task.status.completed,
    print: historyPrinter(io),
    pollMs,
  });
  if (!current.status.completed) {
    io.out(`stopped following; the task goes on: ${client.server}${path}`);
    return EXIT.failed;
  }
  const verdict = current.status.failed ? 'FAILED' : 'SUCCEEDED';
  io.out(`task ${id} ${verdict}: ${current.status.phase}: ${current.status.status}`);
  return current.status.failed ? EXIT.failed : EXIT.ok;
}
