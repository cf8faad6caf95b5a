// One kind `cloudctl get` lists: how its records are read from the HTTP API, which of them a NAME,
// --account, --namespace and --app keep, the table's columns, and (for the kinds GET /watch reports)
// the row a watch event makes. A kind is a file of these; `get-command.ts` does the rest.
import type { ApiClient } from '../client/index.ts';
import type { Column } from './table.ts';

export interface Filter {
  name: string | undefined;
  account: string | undefined;
  namespace: string | undefined;
  app: string | undefined;
}

/** The query of GET /watch and the row each event makes for this kind (undefined: not one of its). */
export interface KindWatch<R> {
  /** `events` (object, task, deployment) and, for objects, `kinds`. */
  query: { events: string; kinds?: string };
  row(event: string, data: unknown): R | undefined;
  /**
   * For a kind whose objects may carry no moniker of their own (pods: their application is their
   * server group's), GET /watch's `application` filter would drop them; with this, the watch asks
   * for the accounts only and keeps a row when this says it belongs to the application.
   */
  inApplication?(record: R, listed: readonly R[], app: string): boolean;
}

export interface KindSpec<R> {
  /** The plural the command takes (`pods`), and its singular. */
  name: string;
  singular: string;
  /** Which filters it honours, for the help and to refuse the others. */
  scopes: ReadonlyArray<'account' | 'namespace' | 'app'>;
  list(client: ApiClient, filter: Filter): Promise<R[]>;
  /** What NAME is matched against, and where the record lives (for --account/--namespace). */
  nameOf(record: R): string;
  accountOf?(record: R): string;
  namespaceOf?(record: R): string;
  columns: readonly Column<R>[];
  watch?: KindWatch<R>;
}

/** The records a filter keeps (the server does not filter every route). */
export function kept<R>(spec: KindSpec<R>, filter: Filter, records: readonly R[]): R[] {
  return records.filter(
    (r) =>
      (filter.name === undefined || spec.nameOf(r) === filter.name) &&
      (filter.account === undefined ||
        spec.accountOf === undefined ||
        spec.accountOf(r) === filter.account) &&
      (filter.namespace === undefined ||
        spec.namespaceOf === undefined ||
        spec.namespaceOf(r) === filter.namespace),
  );
}

export type OutputFormat = 'table' | 'wide' | 'json' | 'yaml';

export interface GetContext {
  client: ApiClient;
  filter: Filter;
  output: OutputFormat;
  watch: boolean;
  now: () => number;
  out: (text: string) => void;
  err: (text: string) => void;
  /** Ends a --watch (Ctrl-C). */
  signal: AbortSignal;
}

/** A kind with its record type closed over: what the command holds in its list. */
export interface Kind {
  name: string;
  singular: string;
  scopes: KindSpec<unknown>['scopes'];
  watches: boolean;
  run(context: GetContext): Promise<number>;
}
