// Follows one record of cloudctl's (a deployment, a task) until it ends, as `deploy -f` and
// `apply-plan` show progress: its GET /watch events, a read of the record whenever the stream starts
// or resets (so what happened before it opened is shown), and a GET every pollMs against a cloudctl
// without /watch. Events and reads may arrive out of order, so a state replaces the current one only
// when the caller says it is not older. Ctrl-C stops following, not the record's work.
import { setTimeout as sleep } from 'node:timers/promises';
import type { CliIo } from '../../../lib/cli-io.ts';
import type { ApiClient, Query } from './api-client.ts';
import { followWatch } from './watch-follower.ts';
import { stopController } from './with-client.ts';

export interface RecordFollow<T> {
  first: T;
  /** The GET /watch query; its `events` name the event type `fromEvent` reads. */
  query: Query;
  event: string;
  /** The followed record in an event's parsed data; undefined for another record's event. */
  fromEvent: (data: unknown) => T | undefined;
  /** The record now (GET); undefined when it cannot be read this time. */
  read: () => Promise<T | undefined>;
  /** Whether `next` may replace `current`: never step back to an older state. */
  newer: (next: T, current: T) => boolean;
  ended: (record: T) => boolean;
  /** Prints what is new in this state. */
  print: (record: T) => void;
  pollMs: number;
}

/** The last state seen: ended, or not when following stopped (Ctrl-C). */
export async function followRecord<T>(client: ApiClient, io: CliIo, spec: RecordFollow<T>): Promise<T> {
  let current = spec.first;
  spec.print(current);
  const show = (next: T | undefined): boolean => {
    if (next !== undefined && spec.newer(next, current)) current = next;
    spec.print(current);
    return spec.ended(current);
  };
  if (spec.ended(current)) return current;
  const stop = stopController(io);
  const outcome = await followWatch(client, {
    query: spec.query,
    signal: stop.signal,
    onReconnect: (reason) => io.err(`watch: ${reason}; reconnecting`),
    onEvent: async (event) => {
      if (event.event === 'position' || event.event === 'reset') return show(await spec.read());
      if (event.event !== spec.event) return false;
      const next = spec.fromEvent(JSON.parse(event.data));
      return next === undefined ? false : show(next);
    },
  });
  // A cloudctl without GET /watch: read the record every pollMs until it ends or Ctrl-C.
  while (outcome === 'absent' && !stop.signal.aborted) {
    await sleep(spec.pollMs, undefined, { signal: stop.signal }).catch(() => {});
    if (stop.signal.aborted || show(await spec.read())) break;
  }
  return current;
}
