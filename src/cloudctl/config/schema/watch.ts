// `watch.*`: the live feed, GET /watch.
import { z } from 'zod';

export const watchSchema = z
  .strictObject({
    windowSeconds: z
      .number()
      .int()
      .positive()
      .default(3600)
      .describe(
        'how long removals are kept for clients resuming with Last-Event-ID; an older position gets a `reset` event',
      ),
    keepAliveSeconds: z
      .number()
      .int()
      .positive()
      .default(15)
      .describe('how often an idle stream sends a comment, so that proxies keep it open'),
    clientBufferBytes: z
      .number()
      .int()
      .min(65_536)
      .default(1_048_576)
      .describe('how much a slow client may leave unread before its stream is ended with a `closed` event'),
  })
  .describe('the live feed (GET /watch)');
