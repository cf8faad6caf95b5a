// Asking cloudctl for a plan: POST /plans with operations, POST /deployments/plans with a deployment
// file. The answer is checked against the plan record the API documents; any other status becomes the
// client's named failure with the server's message (a 400 names the field of the body it refused).
import { type PlanRecord, planRecordSchema } from '../../plans/index.ts';
import type { ApiClient } from '../client/index.ts';

/** POSTs `body` to a route that answers a new plan (201, or 200). */
export async function requestPlan(client: ApiClient, path: string, body: unknown): Promise<PlanRecord> {
  const answer = await client.send('POST', path, body);
  if (answer.status !== 200 && answer.status !== 201) throw client.failure('POST', path, answer);
  return client.parsed('POST', path, planRecordSchema, answer.json);
}
