// `cloudctl get KIND [NAME]`: the kinds, the filters, the output formats, --watch.
import { UsageError } from '../../../lib/command-line.ts';
import { CONNECTION_HELP, CONNECTION_OPTIONS, stopController, withClient } from '../client/index.ts';
import type { CommandSpec, OptionSpec } from '../command-line/index.ts';
import { applicationsKind, clustersKind } from './application-kinds.ts';
import type { Kind, OutputFormat } from './kind.ts';
import { accountsKind, agentsKind, deploymentsKind, tasksKind } from './record-kinds.ts';
import { manifestsKind, podsKind, serverGroupsKind } from './workload-kinds.ts';

export const KINDS: readonly Kind[] = [
  applicationsKind,
  clustersKind,
  serverGroupsKind,
  podsKind,
  manifestsKind,
  tasksKind,
  deploymentsKind,
  accountsKind,
  agentsKind,
];

export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'wide', 'json', 'yaml'];

export const FILTER_OPTIONS: readonly OptionSpec[] = [
  { name: 'account', value: 'ACCOUNT', description: 'only this account' },
  { name: 'namespace', short: 'n', value: 'NAMESPACE', description: 'only this namespace' },
  { name: 'app', value: 'APPLICATION', description: 'only this application (default: every readable one)' },
];

function kindNamed(word: string): Kind {
  const kind = KINDS.find((k) => k.name === word || k.singular === word);
  if (kind === undefined) throw new UsageError(`get: unknown kind '${word}'`);
  return kind;
}

function isOutput(value: string): value is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(value);
}

export const getCommand: CommandSpec = {
  name: 'get',
  synopsis: 'KIND [NAME] [options]',
  summary: 'List objects of a kind as a table (or JSON, YAML); with NAME, just that one.',
  details: [
    'Kinds (singular too):',
    ...KINDS.map(
      (k) =>
        `  ${k.name.padEnd(14)}${k.scopes.length === 0 ? 'no filters' : k.scopes.map((s) => `--${s}`).join(' ')}${k.watches ? ', --watch' : ''}`,
    ),
    'Servergroups, pods and manifests are read per application: --app, or every application.',
    'NAME is the first column (servergroups and manifests: KIND/NAME, e.g. replicaSet/web-v002).',
    '--watch prints the table, then one row per change GET /watch reports, until Ctrl-C.',
    CONNECTION_HELP,
  ].join('\n'),
  options: [
    {
      name: 'output',
      short: 'o',
      value: 'FORMAT',
      choices: OUTPUT_FORMATS,
      description: 'table (default), wide (more columns), json or yaml',
    },
    ...FILTER_OPTIONS,
    { name: 'watch', short: 'w', description: 'after the list, print each change as it happens' },
    ...CONNECTION_OPTIONS,
  ],
  completes: KINDS.flatMap((k) => [k.name, k.singular]),
  positionals: { min: 1, max: 2 },
  run: (args, io) => {
    const kind = kindNamed(args.positionals[0] ?? '');
    const output = args.string('output') ?? 'table';
    if (!isOutput(output)) throw new UsageError(`get: unknown output format '${output}'`);
    for (const scope of ['account', 'namespace', 'app'] as const) {
      if (args.string(scope) !== undefined && !kind.scopes.includes(scope))
        throw new UsageError(`get ${kind.name} takes no --${scope}`);
    }
    if (args.flag('watch') && !kind.watches)
      throw new UsageError(`get ${kind.name} has no --watch (GET /watch does not report ${kind.name})`);
    return withClient(args, io, async (client) => {
      const stop = args.flag('watch') ? stopController(io) : new AbortController();
      return kind.run({
        client,
        filter: {
          name: args.positionals[1],
          account: args.string('account'),
          namespace: args.string('namespace'),
          app: args.string('app'),
        },
        output,
        watch: args.flag('watch'),
        now: Date.now,
        out: io.out,
        err: io.err,
        signal: stop.signal,
      });
    });
  },
};
