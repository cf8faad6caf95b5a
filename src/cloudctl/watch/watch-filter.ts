// What one client of GET /watch asked for (application, accounts, kinds, event types), and whether an
// event goes to it: asked for, and readable by its user now. Permissions are the caller's to pass in,
// read again for every batch, so an account whose permissions change stops flowing at once.
import { HttpError } from '../http/index.ts';
import type { WatchQuery } from './watch-events.ts';
import type { WatchRecord } from './watch-reader.ts';

const STREAMED = ['object', 'task', 'deployment', 'drift'] as const;
type Streamed = (typeof STREAMED)[number];

export interface WatchFilter {
  application: string | undefined;
  /** Undefined: every account the user may read. */
  accounts: ReadonlySet<string> | undefined;
  /** Lower-case spellings; undefined: every kind. */
  kinds: ReadonlySet<string> | undefined;
  events: ReadonlySet<Streamed>;
}

const list = (text: string | undefined) =>
  text === undefined
    ? undefined
    : text
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '');

export function watchFilter(query: WatchQuery): WatchFilter {
  const accounts = query.account === undefined ? undefined : [query.account].flat();
  const kinds = list(query.kinds);
  const events = list(query.events) ?? [...STREAMED];
  const unknown = events.filter((e) => !(STREAMED as readonly string[]).includes(e));
  if (unknown.length > 0 || events.length === 0)
    throw new HttpError(
      'REQUEST_INVALID',
      `events: expected some of ${STREAMED.join(', ')}, found ${JSON.stringify(query.events)}`,
    );
  return {
    application: query.application,
    accounts: accounts === undefined ? undefined : new Set(accounts),
    kinds: kinds === undefined || kinds.length === 0 ? undefined : new Set(kinds.map((k) => k.toLowerCase())),
    events: new Set(events as Streamed[]),
  };
}

function kindMatches(
  kinds: ReadonlySet<string>,
  event: { kind: string; apiGroup: string; spinnakerKind: string },
) {
  const kind = event.kind.toLowerCase();
  return (
    kinds.has(kind) ||
    kinds.has(`${kind}.${event.apiGroup.toLowerCase()}`) ||
    kinds.has(event.spinnakerKind.toLowerCase())
  );
}

/** Whether the record goes to a client with this filter whose user may read `readable` (null: all). */
export function passes(
  filter: WatchFilter,
  record: WatchRecord,
  readable: ReadonlySet<string> | null,
): boolean {
  if (!filter.events.has(record.event)) return false;
  const may = (account: string) => readable === null || readable.has(account);
  const asked = (account: string) => filter.accounts === undefined || filter.accounts.has(account);
  switch (record.event) {
    case 'object':
    case 'drift':
      return (
        may(record.account) &&
        asked(record.account) &&
        (filter.application === undefined || record.application === filter.application) &&
        (filter.kinds === undefined || kindMatches(filter.kinds, record.data))
      );
    case 'task':
      // A task names no application: the application filter leaves tasks to the accounts (docs/watch.md).
      return record.accounts.every(may) && (filter.accounts === undefined || record.accounts.some(asked));
    case 'deployment':
      return (
        record.accounts.every(may) &&
        (filter.accounts === undefined || record.accounts.some(asked)) &&
        (filter.application === undefined || record.application === filter.application)
      );
  }
}
