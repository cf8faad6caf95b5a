// What every client command shares: the --server and --context options, the client they resolve to,
// and the one place a CliError becomes its message on stderr and exit status 1.
import type { CliIo } from '../../../lib/cli-io.ts';
import { EXIT } from '../../../lib/command-line.ts';
import type { OptionSpec, ParsedArgs } from '../command-line/index.ts';
import { ApiClient } from './api-client.ts';
import { CliError } from './cli-error.ts';
import { resolveConnection } from './connection.ts';

export const CONNECTION_OPTIONS: readonly OptionSpec[] = [
  {
    name: 'server',
    short: 's',
    value: 'URL',
    description:
      "cloudctl's HTTP API (default: CLOUDCTL_URL, else the context's, else http://localhost:7002)",
  },
  { name: 'context', value: 'NAME', description: 'the context to use instead of the current one' },
];

export const CONNECTION_HELP =
  'Token: CLOUDCTL_TOKEN, else the token `cloudctl login` stored for the server (never sent to another).';

/** Runs a command's work; a CliError is printed as `cloudctl: <message>` and exits 1. */
export async function reported(io: CliIo, work: () => Promise<number>): Promise<number> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    io.err(`cloudctl: ${error.message}`);
    return EXIT.failed;
  }
}

export function withClient(
  args: ParsedArgs,
  io: CliIo,
  work: (client: ApiClient) => Promise<number>,
): Promise<number> {
  return reported(io, async () => {
    const connection = await resolveConnection(
      { server: args.string('server'), context: args.string('context') },
      io.env,
    );
    return work(new ApiClient(connection));
  });
}

/** An AbortSignal that aborts at the first stop signal (Ctrl-C), for commands that follow a stream. */
export function stopController(io: CliIo): AbortController {
  const controller = new AbortController();
  io.stopSignal().then(
    () => controller.abort(),
    () => {},
  );
  return controller;
}
