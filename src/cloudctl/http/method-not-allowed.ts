// 405 Method Not Allowed, with Allow, for the methods a served path does not take.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HttpMethod } from './route.ts';

/**
 * A path served for some methods answers every other method fastify knows (TRACE, QUERY, OPTIONS,
 * ...) with 405 and an Allow header, not 404. It answers before the body is read: a refused request's
 * body is not parsed, so a missing or unknown content type cannot turn the 405 into a 400 or 415.
 */
export function refuseOtherMethods(
  app: FastifyInstance,
  routes: ReadonlyArray<{ method: HttpMethod; url: string }>,
  refuse: (request: FastifyRequest, reply: FastifyReply, allow: string[]) => void,
): void {
  const byUrl = new Map<string, string[]>();
  for (const route of routes) {
    // fastify answers HEAD for every GET route.
    const methods = route.method === 'GET' ? ['GET', 'HEAD'] : [route.method];
    byUrl.set(route.url, [...(byUrl.get(route.url) ?? []), ...methods]);
  }
  for (const [url, allow] of byUrl) {
    const others = app.supportedMethods.filter((m) => !allow.includes(m));
    if (others.length === 0) continue;
    app.route({
      method: others,
      url,
      schema: { hide: true },
      onRequest: async (request, reply) => {
        refuse(request, reply, allow);
        return reply;
      },
      handler: async (_request, reply) => reply,
    });
  }
}
