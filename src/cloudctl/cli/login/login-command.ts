// `cloudctl login SERVER`: checks a token with one authenticated request (GET /credentials), then
// stores server and token as a context in the contexts file (0600) and makes it current. The token
// comes from --token or CLOUDCTL_TOKEN, or with --sso from a sign-in at cloudctl's OpenID Connect
// provider (sso-sign-in.ts); a token refused (401) or a server that does not answer is reported and
// nothing is stored.
import type { CliIo } from '../../../lib/cli-io.ts';
import { EXIT, UsageError } from '../../../lib/command-line.ts';
import {
  ApiClient,
  contextName,
  contextsPath,
  normalServer,
  readContexts,
  reported,
  stopController,
  withContext,
  writeContexts,
} from '../client/index.ts';
import type { CommandSpec } from '../command-line/index.ts';
import { openBrowser } from './open-browser.ts';
import { signInWithSso } from './sso-sign-in.ts';

/** How long --sso waits for the browser to come back from the provider. */
const SSO_WAIT_MS = 5 * 60_000;

export const loginCommand: CommandSpec = {
  name: 'login',
  synopsis: 'SERVER [--token TOKEN | --sso] [--context NAME]',
  summary: 'Check a token (or sign in at the OIDC provider) and store it with SERVER as the current context.',
  details: [
    'The token: --token, else CLOUDCTL_TOKEN (which keeps it out of the process list).',
    "--sso signs in at SERVER's OpenID Connect provider instead (auth.oidc.cli): it prints a URL to",
    'open in a browser (and opens it with xdg-open or open when there is one), waits up to 5 minutes',
    'for the provider to send the browser back to http://127.0.0.1:<a free port>/callback, and stores',
    'the access token it gets (authorization-code flow with PKCE). Sign in again when it expires.',
    'Stored in $XDG_CONFIG_HOME/cloudctl/config (else ~/.config/cloudctl/config), readable by its',
    "owner only (0600). The context is named --context, else after SERVER's host:port.",
  ].join('\n'),
  options: [
    { name: 'token', value: 'TOKEN', description: "a user's bearer token (users[] or an OAuth token)" },
    { name: 'sso', description: "sign in at the server's OpenID Connect provider in a browser" },
    { name: 'context', value: 'NAME', description: "the context's name (default: SERVER's host:port)" },
  ],
  positionals: { min: 1, max: 1 },
  run: (args, io) => {
    const server = normalServer(args.positionals[0] ?? '', 'SERVER');
    const sso = args.flag('sso');
    if (sso && args.string('token') !== undefined)
      throw new UsageError("'login' takes --token or --sso, not both");
    const given = args.string('token') ?? (io.env.CLOUDCTL_TOKEN === '' ? undefined : io.env.CLOUDCTL_TOKEN);
    if (!sso && given === undefined)
      throw new UsageError("'login' needs --token TOKEN (or CLOUDCTL_TOKEN), or --sso");
    const name = args.string('context') ?? contextName(server);
    return reported(io, async () => {
      const token = sso ? await ssoToken(server, io) : (given ?? '');
      await verifyToken(new ApiClient({ server, token, context: undefined }));
      const path = contextsPath(io.env);
      const via = sso ? 'sso' : 'token';
      await writeContexts(path, withContext(await readContexts(path), { name, server, token, via }));
      io.out(`Logged in to ${server}; context '${name}' is current (${path}).`);
      return EXIT.ok;
    });
  },
};

function ssoToken(server: string, io: CliIo): Promise<string> {
  const signal = AbortSignal.any([stopController(io).signal, AbortSignal.timeout(SSO_WAIT_MS)]);
  return signInWithSso(new ApiClient({ server, token: undefined, context: undefined }), {
    say: io.err,
    open: (url) => openBrowser(url, io.env),
    signal,
  });
}

/** One authenticated request every user may make: 200 proves the server takes the token. */
export async function verifyToken(client: ApiClient): Promise<void> {
  const answer = await client.send('GET', '/credentials');
  if (answer.status !== 200) throw client.failure('GET', '/credentials', answer);
}
