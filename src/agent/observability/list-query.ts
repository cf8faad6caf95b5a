// Filtering and paging of the admin JSON lists: `?field=value` filters (substring, case-insensitive)
// on the fields a view allows, `?limit=` (1–500, default 100) and `?offset=` page through them.
import { CodedError } from '../../lib/coded-error.ts';

export interface Page<T> {
  items: T[];
  total: number;
  offset: number;
  limit: number;
  /** Query string of the next page, when there is one. */
  next?: string;
}

export class ListQueryError extends CodedError<'LIST_QUERY_INVALID'> {
  constructor(message: string) {
    super('LIST_QUERY_INVALID', message);
  }
}

function intParam(url: URL, name: string, fallback: number, min: number, max: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ListQueryError(`${name} must be an integer from ${min} to ${max}, found '${raw}'`);
  }
  return value;
}

export function pageOf<T extends object>(
  items: T[],
  url: URL,
  filterable: ReadonlyArray<keyof T & string>,
): Page<T> {
  const allowed = new Set<string>([...filterable, 'limit', 'offset']);
  for (const key of url.searchParams.keys()) {
    if (!allowed.has(key))
      throw new ListQueryError(`unknown query parameter '${key}'; use ${[...allowed].join(', ')}`);
  }
  const limit = intParam(url, 'limit', 100, 1, 500);
  const offset = intParam(url, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
  const filters = filterable
    .map((field) => [field, url.searchParams.get(field)?.toLowerCase()] as const)
    .filter((f): f is readonly [keyof T & string, string] => f[1] !== undefined);
  const matching = items.filter((item) =>
    filters.every(([field, wanted]) =>
      String(item[field] ?? '')
        .toLowerCase()
        .includes(wanted),
    ),
  );
  const page: Page<T> = {
    items: matching.slice(offset, offset + limit),
    total: matching.length,
    offset,
    limit,
  };
  if (offset + limit < matching.length) {
    const next = new URLSearchParams(url.searchParams);
    next.set('offset', String(offset + limit));
    page.next = `?${next}`;
  }
  return page;
}
