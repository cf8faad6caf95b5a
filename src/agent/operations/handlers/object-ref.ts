// The reference to one object that most handlers take, and its URL path on the account's cluster.
import { z } from 'zod';
import { resourcePath } from '../../../kube/index.ts';
import type { HandlerContext } from '../operation-handler.ts';

export const objectRefSchema = z.object({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  namespace: z.string().min(1).optional(),
  name: z.string().min(1),
});
export type ObjectRef = z.infer<typeof objectRefSchema>;

export async function objectPath(
  ref: ObjectRef,
  context: HandlerContext,
  subresource?: string,
): Promise<string> {
  const resource = await context.cluster.resources.resolve(ref.apiVersion, ref.kind, context.signal);
  return `${resourcePath(resource, ref.namespace, ref.name)}${subresource ? `/${subresource}` : ''}`;
}

export async function getObject(ref: ObjectRef, context: HandlerContext): Promise<unknown> {
  const answer = await context.cluster.http.request({
    verb: 'get',
    method: 'GET',
    path: await objectPath(ref, context),
    signal: context.signal,
  });
  return answer.body;
}
