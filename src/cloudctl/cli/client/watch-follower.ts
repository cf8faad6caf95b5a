// Follows GET /watch for a client command, as a reflector would: open the stream, hand each event to
// the caller, remember the last id; when the stream breaks (cloudctl restarted, a proxy cut it), open
// it again after a backoff with Last-Event-ID, so nothing is missed or seen twice. A 401/403 or a `closed` for an expired token ends it (asking again would not help); a 404 means the server has no /watch (an older
// cloudctl), which the caller may meet by polling.
import { backoffSleep } from '../../../lib/backoff.ts';
import { type ApiClient, type Query, unreachable, withQuery } from './api-client.ts';
import { CliError } from './cli-error.ts';
import { readEventStream, type StreamEvent } from './event-stream.ts';

export type WatchOutcome =
  /** The server has no /watch (404 on the first connect). */
  | 'absent'
  /** The caller's handler said it has seen enough, or the signal aborted. */
  | 'stopped';

export interface FollowOptions {
  query: Query;
  /** Returns true to stop following. */
  onEvent: (event: StreamEvent) => boolean | Promise<boolean>;
  signal: AbortSignal;
  /** Called when the stream broke and is opened again (for a note on stderr). */
  onReconnect?: (reason: string) => void;
}

export async function followWatch(client: ApiClient, options: FollowOptions): Promise<WatchOutcome> {
  const backoff = backoffSleep({ initialDelayMs: 250, multiplier: 2, jitter: 0.2, maxDelayMs: 5_000 });
  let lastId: string | undefined;
  let first = true;
  while (!options.signal.aborted) {
    let response: Response;
    try {
      response = await fetch(`${client.server}${withQuery('/watch', options.query)}`, {
        headers: client.headers({
          accept: 'text/event-stream',
          ...(lastId === undefined ? {} : { 'last-event-id': lastId }),
        }),
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal.aborted) return 'stopped';
      // The first connect failing is the command's failure; later ones are a restart to wait out.
      if (first) throw unreachable(client.server, error);
      options.onReconnect?.(unreachable(client.server, error).message);
      await backoff.wait(options.signal);
      continue;
    }
    if (response.status === 404 && first) return 'absent';
    if (response.status !== 200 || response.body === null) {
      const text = await response.text();
      const failure = client.failure('GET', '/watch', {
        status: response.status,
        json: safeJson(text),
        text,
      });
      if (first || response.status === 401 || response.status === 403) throw failure;
      options.onReconnect?.(failure.message);
      await backoff.wait(options.signal);
      continue;
    }
    first = false;
    backoff.reset();
    try {
      for await (const event of readEventStream(response.body)) {
        if (event.id !== undefined) lastId = event.id;
        // A stream closed for shutting down or a slow reader resumes from its id; a token that
        // expired mid-stream would only be refused again.
        if (event.event === 'closed' && event.data.includes('UNAUTHENTICATED'))
          throw new CliError('UNAUTHORIZED', `cloudctl closed the watch: ${event.data}`);
        if (await options.onEvent(event)) {
          await response.body.cancel().catch(() => {});
          return 'stopped';
        }
      }
    } catch (error) {
      if (options.signal.aborted) return 'stopped';
      if (error instanceof CliError) throw error;
      options.onReconnect?.(`the watch broke: ${error instanceof Error ? error.message : String(error)}`);
    }
    await backoff.wait(options.signal);
  }
  return 'stopped';
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
