// The URL path on the account's cluster of the object an operation names (the contract's ObjectRef).
import type { ObjectRef } from '../../../contract/index.ts';
import { resourcePath } from '../../../kube/index.ts';
import type { HandlerContext } from '../operation-handler.ts';

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
