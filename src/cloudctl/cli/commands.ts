// Every cloudctl command, in the order --help lists them. The daemon and the deployment-file commands
// load their modules only when run, so `get` and friends start without loading the control plane.
import { UsageError } from '../../lib/command-line.ts';
import { CONNECTION_HELP, CONNECTION_OPTIONS, withClient } from './client/index.ts';
import { CLIENTS_COMMANDS } from './clients/index.ts';
import type { CommandSpec } from './command-line/index.ts';
import { completionCommand } from './completion/index.ts';
import { describeCommand } from './describe/index.ts';
import { getCommand } from './get/index.ts';
import { currentContextCommand, getContextsCommand, loginCommand, useContextCommand } from './login/index.ts';
import { logsCommand } from './logs/index.ts';
import { applyPlanCommand, planCommand, planDeployment } from './plan/index.ts';

const serveCommand: CommandSpec = {
  name: 'serve',
  synopsis: '--config FILE',
  summary: 'Run the control plane: the agents gRPC endpoint and the HTTP API, until SIGTERM/SIGINT.',
  details: [
    "Resolves the config's secret references (encrypted:...) first; grpc.port defaults to 9091 and",
    'http.port to 7002. Exit 1 when the config is invalid or a port or the database cannot be used.',
    'Tokens are configured by hash: printf %s "$TOKEN" | sha256sum gives the hex after "sha256:".',
    'Config reference: docs/cloudctl-configuration.md',
  ].join('\n'),
  options: [{ name: 'config', short: 'c', value: 'FILE', description: 'the cloudctl configuration (YAML)' }],
  positionals: { min: 0, max: 0 },
  run: async (args, io) => {
    const config = args.string('config');
    if (config === undefined) throw new UsageError("'serve' needs --config FILE");
    return (await import('./serve-command.ts')).serveCommand(config, io);
  },
};

const validateCommand: CommandSpec = {
  name: 'config validate',
  synopsis: 'FILE',
  summary: 'Check a config file, its secret references without fetching them; exit 1 when invalid.',
  details: 'Prints every problem as file:line:column: severity: key.path: message',
  options: [],
  positionals: { min: 1, max: 1 },
  run: async (args, io) =>
    (await import('./config-commands.ts')).validateCommand(args.positionals[0] ?? '', io),
};

const printCommand: CommandSpec = {
  name: 'config print',
  synopsis: 'FILE',
  summary: 'Print the effective config as YAML: defaults filled, paths absolute, secrets as ***.',
  options: [],
  positionals: { min: 1, max: 1 },
  run: async (args, io) => (await import('./config-commands.ts')).printCommand(args.positionals[0] ?? '', io),
};

const deployCommand: CommandSpec = {
  name: 'deploy',
  synopsis: '-f FILE [--no-wait | --plan] [options]',
  summary: 'Check a deployment file, send it to cloudctl and follow it until it ends (or only plan it).',
  details: [
    'Every problem in the file is printed at its line before anything is sent; manifest paths are',
    'inlined. Following prints its log as it grows (through GET /watch; by polling against a cloudctl',
    'without it) and the verdict; exit 0 only when it succeeds, 1 when it fails, is rolled back or',
    'refused. Ctrl-C stops following, not the deployment.',
    "--plan starts nothing: POST /deployments/plans plans each target's first deploy and the plan is",
    'printed as cloudctl plan prints one (exit 0 when planned); cloudctl apply-plan ID starts it.',
    CONNECTION_HELP,
  ].join('\n'),
  options: [
    { name: 'file', short: 'f', value: 'FILE', description: 'the deployment file (required)' },
    { name: 'no-wait', description: 'submit, print the id, do not follow' },
    { name: 'plan', description: 'plan the deployment and print the diff and plan id; start nothing' },
    ...CONNECTION_OPTIONS,
  ],
  positionals: { min: 0, max: 0 },
  run: (args, io) => {
    const file = args.string('file');
    if (file === undefined) throw new UsageError("'deploy' needs -f FILE");
    if (args.flag('plan')) {
      if (args.flag('no-wait'))
        throw new UsageError("'deploy --plan' starts nothing to wait for: drop --no-wait");
      return withClient(args, io, (client) => planDeployment(file, args, client, io));
    }
    return withClient(args, io, (client) =>
      import('./deploy-command.ts').then((m) =>
        m.deployCommand({ file, wait: !args.flag('no-wait'), pollMs: 1000 }, client, io),
      ),
    );
  },
};

export function commands(): readonly CommandSpec[] {
  return [
    loginCommand,
    getCommand,
    describeCommand,
    logsCommand,
    deployCommand,
    planCommand,
    applyPlanCommand,
    ...CLIENTS_COMMANDS,
    serveCommand,
    validateCommand,
    printCommand,
    getContextsCommand,
    useContextCommand,
    currentContextCommand,
    completionCommand(commands),
  ];
}
