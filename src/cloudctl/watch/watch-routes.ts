// GET /watch: the live feed as Server-Sent Events (watch-events.ts has the events). Resumes after the
// Last-Event-ID header, or `since` for a browser's first connect (EventSource sets the header only when
// it reconnects). The status page mounts the same stream under its own path, with its session cookie
// (`watchRoute` with another URL and credential).
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { defineRoute, Reply, type Route } from '../http/index.ts';
import { WATCH_EVENT_TYPES, type WatchQuery, watchQuerySchema } from './watch-events.ts';
import { watchFilter } from './watch-filter.ts';
import type { WatchHub } from './watch-hub.ts';

const SSE_HEADERS = {
  'cache-control': 'no-cache, no-transform',
  // nginx buffers answers by default; a feed must pass at once.
  'x-accel-buffering': 'no',
};

export interface WatchRouteOptions {
  url: string;
  /** Where the route finds its credential (the status page: its cookie); by default the header. */
  authorization?: (headers: IncomingHttpHeaders) => string | undefined;
  /** Left out of the API document (a page's own path). */
  hidden?: boolean;
}

const lastEventId = (headers: IncomingHttpHeaders): string | undefined => {
  const value = headers['last-event-id'];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};

export function watchRoute(hub: WatchHub, options: WatchRouteOptions): Route {
  return defineRoute({
    method: 'GET',
    url: options.url,
    summary:
      'Follow changes as Server-Sent Events: objects, tasks and deployments of the accounts the caller may read (docs/watch.md)',
    tag: 'watch',
    access: 'user',
    // Refusals (400, 401) answer the API's JSON error body.
    produces: ['text/event-stream', 'application/json'],
    ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
    ...(options.hidden ? { hidden: true } : {}),
    schema: {
      querystring: watchQuerySchema,
      response: {
        // As Swagger 2.0 can say it (and schemathesis reads it): the stream as a list of events.
        200: z
          .array(
            z.object({
              id: z.string().optional().describe('the event’s number (absent on `closed`)'),
              event: z.enum(WATCH_EVENT_TYPES),
              data: z
                .string()
                .describe(
                  'one JSON object: WatchPosition, WatchObjectEvent, WatchTaskEvent, WatchDeploymentEvent, WatchReset or WatchClosed (docs/watch.md)',
                ),
            }),
          )
          .describe('Server-Sent Events; `: heartbeat` comments keep the stream open'),
      },
    },
    handler: async (request) => {
      const query: WatchQuery = request.query;
      const client = await hub.join({
        user: request.user,
        filter: watchFilter(query),
        since: lastEventId(request.headers) ?? query.since,
      });
      return new Reply(200, client.stream, 'text/event-stream; charset=utf-8', SSE_HEADERS);
    },
  });
}

export function watchRoutes(hub: WatchHub): Route[] {
  return [watchRoute(hub, { url: '/watch' })];
}
