// What `get` does with any kind: list, keep what the filters ask for, print as a table, wide table,
// JSON or YAML; under --watch, then follow GET /watch and print a row (or an object) per change.
import { dump } from 'js-yaml';
import { EXIT } from '../../../lib/command-line.ts';
import { CliError, followWatch } from '../client/index.ts';
import { type GetContext, type Kind, type KindSpec, kept } from './kind.ts';
import { TablePrinter } from './table.ts';

export function defineKind<R>(spec: KindSpec<R>): Kind {
  return {
    name: spec.name,
    singular: spec.singular,
    scopes: spec.scopes,
    watches: spec.watch !== undefined,
    run: (context) => showKind(spec, context),
  };
}

function scopeText(context: GetContext): string {
  const { account, namespace, app } = context.filter;
  const parts = [
    ...(app === undefined ? [] : [`application ${app}`]),
    ...(account === undefined ? [] : [`account ${account}`]),
    ...(namespace === undefined ? [] : [`namespace ${namespace}`]),
  ];
  return parts.length === 0 ? '' : ` in ${parts.join(', ')}`;
}

async function showKind<R>(spec: KindSpec<R>, context: GetContext): Promise<number> {
  const { filter, output } = context;
  const records = kept(spec, filter, await spec.list(context.client, filter));
  if (filter.name !== undefined && records.length === 0 && !context.watch)
    throw new CliError('NOT_FOUND', `not found: no ${spec.singular} '${filter.name}'${scopeText(context)}`);
  const printer = new TablePrinter(spec.columns, output === 'wide');
  if (output === 'json') {
    context.out(JSON.stringify(filter.name === undefined ? records : records[0], null, 2));
  } else if (output === 'yaml') {
    context.out(
      dump(filter.name === undefined ? records : records[0], { lineWidth: -1, noRefs: true }).trimEnd(),
    );
  } else if (records.length === 0) {
    context.err(`No ${spec.name} found${scopeText(context)}.`);
  } else {
    for (const line of printer.table(records, context.now())) context.out(line);
  }
  if (!context.watch || spec.watch === undefined) return EXIT.ok;
  return follow(spec, spec.watch, printer, context, records);
}

async function follow<R>(
  spec: KindSpec<R>,
  watch: NonNullable<KindSpec<R>['watch']>,
  printer: TablePrinter<R>,
  context: GetContext,
  listed: readonly R[],
): Promise<number> {
  const { filter } = context;
  const { app } = filter;
  const { inApplication } = watch;
  const belongs = (record: R) =>
    app === undefined || inApplication === undefined || inApplication(record, listed, app);
  const outcome = await followWatch(context.client, {
    query: {
      ...watch.query,
      application: inApplication === undefined ? app : undefined,
      account: filter.account,
    },
    signal: context.signal,
    onReconnect: (reason) => context.err(`watch: ${reason}; reconnecting`),
    onEvent: (event) => {
      if (event.event === 'reset') {
        context.err('watch: cloudctl no longer holds what came since the table; run the command again');
        return true;
      }
      let data: unknown;
      try {
        data = JSON.parse(event.data);
      } catch {
        return false;
      }
      const record = watch.row(event.event, data);
      if (record === undefined || kept(spec, filter, [record]).length === 0 || !belongs(record)) return false;
      if (context.output === 'json') context.out(JSON.stringify(record));
      else if (context.output === 'yaml') context.out(`---\n${dump(record, { lineWidth: -1 }).trimEnd()}`);
      else context.out(printer.row(record, context.now()));
      return false;
    },
  });
  if (outcome === 'absent')
    throw new CliError(
      'NOT_FOUND',
      `${context.client.server} has no GET /watch (an older cloudctl): drop --watch`,
    );
  return EXIT.ok;
}
