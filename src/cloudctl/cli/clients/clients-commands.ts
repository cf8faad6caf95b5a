// `cloudctl clients create|list|revoke|rotate`: the client credentials of /clients (docs/oauth.md) from
// a terminal, for the platform team that installs agents and webhook jobs without a browser. Creating
// and rotating print the secret once, to standard output only, with what to do with it; the rest of
// what the commands print never holds one. Administrators only, as the routes are.
import { UsageError } from '../../../lib/command-line.ts';
import { CONNECTION_HELP, CONNECTION_OPTIONS, withClient } from '../client/index.ts';
import type { CommandSpec, OptionSpec, ParsedArgs } from '../command-line/index.ts';

// The API's CLIENT_TYPES, spelled here so --help and completion do not load the oauth feature; the
// server checks the type again, and test/cloudctl/cli/clients-commands.test.ts uses both.
const CLIENT_TYPES = ['deployments', 'remoteNetworkAgent'] as const;
const OUTPUTS = ['table', 'json'] as const;

const OUTPUT_OPTION: OptionSpec = {
  name: 'output',
  short: 'o',
  value: 'FORMAT',
  choices: OUTPUTS,
  description: 'table (default) or json',
};

const ADMIN_HELP = 'Needs a user of auth.adminRoles (403 otherwise).';

function output(args: ParsedArgs, command: string): (typeof OUTPUTS)[number] {
  const value = args.string('output') ?? 'table';
  const known = OUTPUTS.find((o) => o === value);
  if (known === undefined) throw new UsageError(`${command}: unknown output format '${value}'`);
  return known;
}

/** The module with the API calls and printing, loaded when a clients command runs. */
const actions = () => import('./clients-actions.ts');

export const clientsCreateCommand: CommandSpec = {
  name: 'clients create',
  synopsis: '--name NAME --type TYPE --role ROLE... [options]',
  summary: 'Create a client credential (POST /clients); print its secret, shown this once only.',
  details: [
    'deployments: Deployments Full Access, for a webhook job or a workflow tool: it trades the',
    'secret for tokens at POST /oauth/token and calls the HTTP API with its roles.',
    'remoteNetworkAgent: an agent connects as --agent-id (required) with the secret as its',
    "cloudctl.auth.token; no change to cloudctl's config and no restart.",
    'The secret goes to standard output with the client id; store it now: cloudctl keeps a hash only.',
    ADMIN_HELP,
    CONNECTION_HELP,
  ].join('\n'),
  options: [
    { name: 'name', value: 'NAME', description: 'what the credential is for, for people (required)' },
    { name: 'type', value: 'TYPE', choices: CLIENT_TYPES, description: 'what it may do (required)' },
    {
      name: 'role',
      value: 'ROLE',
      multiple: true,
      description: 'a role it acts with, matched against account permissions (one or more)',
    },
    { name: 'agent-id', value: 'ID', description: 'remoteNetworkAgent only: the agent id it connects as' },
    OUTPUT_OPTION,
    ...CONNECTION_OPTIONS,
  ],
  positionals: { min: 0, max: 0 },
  run: (args, io) => {
    const name = args.string('name');
    const type = CLIENT_TYPES.find((t) => t === args.string('type'));
    const roles = args.strings('role');
    if (name === undefined) throw new UsageError("'clients create' needs --name NAME");
    if (type === undefined)
      throw new UsageError(`'clients create' needs --type ${CLIENT_TYPES.join(' or ')}`);
    if (roles.length === 0) throw new UsageError("'clients create' needs at least one --role ROLE");
    const agentId = args.string('agent-id');
    const format = output(args, 'clients create');
    return withClient(args, io, async (client) =>
      (await actions()).createClient(client, io, format, {
        name,
        type,
        roles,
        ...(agentId === undefined ? {} : { agentId }),
      }),
    );
  },
};

export const clientsListCommand: CommandSpec = {
  name: 'clients list',
  synopsis: '[options]',
  summary: 'List the client credentials (GET /clients), revoked ones included, never a secret.',
  details: [ADMIN_HELP, CONNECTION_HELP].join('\n'),
  options: [OUTPUT_OPTION, ...CONNECTION_OPTIONS],
  positionals: { min: 0, max: 0 },
  run: (args, io) => {
    const format = output(args, 'clients list');
    return withClient(args, io, async (client) => (await actions()).listClients(client, io, format));
  },
};

export const clientsRevokeCommand: CommandSpec = {
  name: 'clients revoke',
  synopsis: 'CLIENT_ID [options]',
  summary: 'Revoke a client credential (DELETE /clients/{id}): its tokens and agent streams stop.',
  details: [ADMIN_HELP, CONNECTION_HELP].join('\n'),
  options: [...CONNECTION_OPTIONS],
  positionals: { min: 1, max: 1 },
  run: (args, io) =>
    withClient(args, io, async (client) =>
      (await actions()).revokeClient(client, io, args.positionals[0] ?? ''),
    ),
};

export const clientsRotateCommand: CommandSpec = {
  name: 'clients rotate',
  synopsis: 'CLIENT_ID [options]',
  summary: 'Replace the secret of a client credential (POST /clients/{id}/rotate); print the new one.',
  details: [
    'The old secret, its tokens and the streams of an agent using it stop at once; a revoked',
    'credential is refused (409). The new secret is printed this once only.',
    ADMIN_HELP,
    CONNECTION_HELP,
  ].join('\n'),
  options: [OUTPUT_OPTION, ...CONNECTION_OPTIONS],
  positionals: { min: 1, max: 1 },
  run: (args, io) => {
    const format = output(args, 'clients rotate');
    return withClient(args, io, async (client) =>
      (await actions()).rotateClient(client, io, format, args.positionals[0] ?? ''),
    );
  },
};

export const CLIENTS_COMMANDS: readonly CommandSpec[] = [
  clientsCreateCommand,
  clientsListCommand,
  clientsRevokeCommand,
  clientsRotateCommand,
];
