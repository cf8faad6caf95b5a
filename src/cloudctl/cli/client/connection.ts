// Which server a client command talks to and with which token. The order, most specific first:
// --server, then CLOUDCTL_URL, then the context (--context NAME, else the current one), then
// http://localhost:7002; the token from CLOUDCTL_TOKEN, else the context's. A context's token is sent
// only to that context's server: pointing CLOUDCTL_URL or --server elsewhere must not hand the stored
// token to another host.
import { UsageError } from '../../../lib/command-line.ts';
import { CliError } from './cli-error.ts';
import { type Context, contextsPath, readContexts } from './contexts-file.ts';

export const DEFAULT_SERVER = 'http://localhost:7002';

export interface Connection {
  /** Without a trailing slash. */
  server: string;
  token: string | undefined;
  /** The context it came from, if any (for messages). */
  context: string | undefined;
}

export interface ConnectionFlags {
  server: string | undefined;
  context: string | undefined;
}

export function normalServer(server: string, what: string): string {
  if (!/^https?:\/\/[^/]/.test(server))
    throw new UsageError(`${what} must be an http:// or https:// URL, found '${server}'`);
  return server.replace(/\/+$/, '');
}

export async function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv): Promise<Connection> {
  const path = contextsPath(env);
  const contexts = await readContexts(path);
  const name = flags.context ?? contexts['current-context'];
  let context: Context | undefined;
  if (name !== undefined) {
    context = contexts.contexts.find((c) => c.name === name);
    if (context === undefined && flags.context !== undefined)
      throw new CliError(
        'CONTEXT',
        `no context '${name}' in ${path}; 'cloudctl config get-contexts' lists them`,
      );
  }
  const fromEnv = env.CLOUDCTL_URL === '' ? undefined : env.CLOUDCTL_URL;
  const server =
    flags.server !== undefined
      ? normalServer(flags.server, '--server')
      : fromEnv !== undefined
        ? normalServer(fromEnv, 'CLOUDCTL_URL')
        : context !== undefined
          ? normalServer(context.server, `context '${context.name}'`)
          : DEFAULT_SERVER;
  const envToken = env.CLOUDCTL_TOKEN === '' ? undefined : env.CLOUDCTL_TOKEN;
  const contextToken =
    context !== undefined && normalServer(context.server, 'server') === server ? context.token : undefined;
  return { server, token: envToken ?? contextToken, context: context?.name };
}
