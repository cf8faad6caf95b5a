// A client of cloudctl's operations API in its own process, as Orca is one: it starts operations
// with POST /orchestrator/ops and follows the task with GET /task/{id} until the task is complete,
// and times the whole, from sending the POST to reading the completed task. It follows the task as
// asked: `wait` asks each GET to wait for the task's next change (`?waitMs=`), so it reads the
// completion as it is stored; `poll` asks again every `pollMs`, as a client of the API we mirror does.
// cloudctl runs in the benchmark's process, so a client there would share its event loop and count its
// own work as cloudctl's (see http-timer.ts); fetch keeps one connection alive between requests and runs.
//   const client = startTaskClient();
//   const { ms, polls } = await client.run({ base, token, follow: 'wait', pollMs: 10, operations: [...] });
//   await client.close();
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';

export interface TaskRequest {
  /** Origin of cloudctl's HTTP API, e.g. `http://127.0.0.1:8080`. */
  base: string;
  /** A user's bearer token. */
  token: string;
  /** `wait`: each GET waits for the task's next change; `poll`: a GET every `pollMs`. */
  follow: 'wait' | 'poll';
  /** Pause between a task answer that is not complete and the next GET; the first GET is at once. */
  pollMs: number;
  /** The body of POST /orchestrator/ops: a list of `{operationName: payload}`. */
  operations: readonly object[];
  /** A task not complete by then fails the run. */
  limitMs: number;
}

export interface TaskTiming {
  /** From sending the POST to the completed task's body read. */
  ms: number;
  /** From sending the POST to its answer (the request checked, the deploy planned, the task stored). */
  acceptedMs: number;
  /** GET /task/{id} requests made, the last one included. */
  polls: number;
  /** The task's id, to find its stored times. */
  taskId: string;
  /** Wall-clock times (epoch ms, the clock cloudctl stores by): the POST sent, the completion read. */
  sentAt: number;
  seenAt: number;
}

type Answer = TaskTiming | { error: string };

export interface TaskClient {
  run(request: TaskRequest): Promise<TaskTiming>;
  close(): Promise<void>;
}

export function startTaskClient(): TaskClient {
  const child: ChildProcess = fork(new URL(import.meta.url).pathname, [], { stdio: 'inherit' });
  return {
    async run(request) {
      const answered = once(child, 'message') as Promise<[Answer]>;
      child.send(request);
      const [answer] = await answered;
      if ('error' in answer) throw new Error(answer.error);
      return answer;
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}

/** How long one GET may wait for the task's next change. */
const WAIT_MS = 5_000;

const startedSchema = z.object({ id: z.string(), resourceUri: z.string() });
const taskSchema = z.object({
  status: z.object({ completed: z.boolean(), failed: z.boolean(), status: z.string() }),
  history: z.array(z.unknown()),
});

async function json(response: Response, what: string): Promise<unknown> {
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${what}: HTTP ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function runTask(request: TaskRequest): Promise<TaskTiming> {
  const authorization = `Bearer ${request.token}`;
  const sentAt = Date.now();
  const started = performance.now();
  const deadline = started + request.limitMs;
  const post = await fetch(`${request.base}/orchestrator/ops`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(request.operations),
  });
  const { id: taskId, resourceUri } = startedSchema.parse(await json(post, 'POST /orchestrator/ops'));
  const acceptedMs = performance.now() - started;
  const follow = request.follow === 'wait' ? `${resourceUri}?waitMs=${WAIT_MS}` : resourceUri;
  for (let polls = 1; ; polls++) {
    const answer = await fetch(`${request.base}${follow}`, { headers: { authorization } });
    const task = taskSchema.parse(await json(answer, `GET ${resourceUri}`));
    if (task.status.completed) {
      const ms = performance.now() - started;
      const seenAt = Date.now();
      if (task.status.failed) {
        throw new Error(`task ${resourceUri} failed: ${task.status.status}; ${JSON.stringify(task.history)}`);
      }
      return { ms, acceptedMs, polls, taskId, sentAt, seenAt };
    }
    if (performance.now() > deadline) {
      throw new Error(`task ${resourceUri} not complete after ${request.limitMs} ms`);
    }
    if (request.follow === 'poll') await sleep(request.pollMs);
  }
}

if (import.meta.main) {
  process.on('message', (request: TaskRequest) => {
    runTask(request).then(
      (timing) => process.send?.(timing),
      (error: unknown) => process.send?.({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
}
