// `cloudctl login SERVER`: checks a token with one authenticated request (GET /credentials), then
// stores server and token as a context in the contexts file (0600) and makes it current. The token
// comes from --token or CLOUDCTL_TOKEN; a token refused (401) or a server that does not answer is
// reported and nothing is stored.
import { EXIT, UsageError } from '../../../lib/command-line.ts';
import {
  ApiClient,
  contextName,
  contextsPath,
  normalServer,
  readContexts,
  reported,
  withContext,
  writeContexts,
} from '../client/index.ts';
import type { CommandSpec } from '../command-line/index.ts';

export const loginCommand: CommandSpec = {
  name: 'login',
  synopsis: 'SERVER [--token TOKEN] [--context NAME]',
  summary: 'Check a token against SERVER and store both as the current context.',
  details: [
    'The token: --token, else CLOUDCTL_TOKEN (which keeps it out of the process list).',
    'Stored in $XDG_CONFIG_HOME/cloudctl/config (else ~/.config/cloudctl/config), readable by its',
    "owner only (0600). The context is named --context, else after SERVER's host:port.",
  ].join('\n'),
  options: [
    { name: 'token', value: 'TOKEN', description: "a user's bearer token (users[] or an OAuth token)" },
    { name: 'context', value: 'NAME', description: "the context's name (default: SERVER's host:port)" },
  ],
  positionals: { min: 1, max: 1 },
  run: (args, io) => {
    const server = normalServer(args.positionals[0] ?? '', 'SERVER');
    const token = args.string('token') ?? (io.env.CLOUDCTL_TOKEN === '' ? undefined : io.env.CLOUDCTL_TOKEN);
    if (token === undefined) throw new UsageError("'login' needs --token TOKEN (or CLOUDCTL_TOKEN)");
    const name = args.string('context') ?? contextName(server);
    return reported(io, async () => {
      await verifyToken(new ApiClient({ server, token, context: undefined }));
      const path = contextsPath(io.env);
      await writeContexts(path, withContext(await readContexts(path), { name, server, token, via: 'token' }));
      io.out(`Logged in to ${server}; context '${name}' is current (${path}).`);
      return EXIT.ok;
    });
  },
};

/** One authenticated request every user may make: 200 proves the server takes the token. */
export async function verifyToken(client: ApiClient): Promise<void> {
  const answer = await client.send('GET', '/credentials');
  if (answer.status !== 200) throw client.failure('GET', '/credentials', answer);
}
