// Follows a task of cloudctl's HTTP API (`GET /task/{id}`) until it has completed, as a client polls.
import { setTimeout as sleep } from 'node:timers/promises';
import { type ApiClient, UndocumentedAnswerError } from '../cloudctl/http-client.ts';

/**
 * The task once `status.completed`; throws with its last answer when `timeoutMs` runs out. A request
 * that fails (cloudctl restarting, a replica taking over) is asked again; an answer that does not
 * match cloudctl's API document is thrown at once, as from any other request of a test.
 */
export async function taskDone(client: ApiClient, id: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await client.get(`/task/${id}`).catch((error: unknown) => {
      if (error instanceof UndocumentedAnswerError) throw error;
      return undefined;
    });
    if (answer?.status === 200 && answer.body.status.completed) return answer.body;
    if (Date.now() > deadline) throw new Error(`task ${id} not completed: ${JSON.stringify(answer?.body)}`);
    await sleep(100);
  }
}
