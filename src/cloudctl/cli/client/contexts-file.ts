// The contexts file `cloudctl login` writes, shaped like kubeconfig's contexts: each context a server
// and the token for it, one of them current. It holds tokens, so it is written readable by its owner
// only (0600, in a 0700 folder), through a temporary file renamed over the old one so a crash never
// leaves half a file. Where: $XDG_CONFIG_HOME/cloudctl/config, else ~/.config/cloudctl/config.
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { dump, load } from 'js-yaml';
import { z } from 'zod';
import { CliError } from './cli-error.ts';

export const contextSchema = z.strictObject({
  name: z.string().min(1),
  server: z.url(),
  token: z.string().min(1),
  /** How the token was had: given (`--token`) or signed in at the provider (`--sso`). */
  via: z.enum(['token', 'sso']).default('token'),
  /** The user the server knows the token as, when login learned it. */
  user: z.string().optional(),
});
export type Context = z.infer<typeof contextSchema>;

export const contextsSchema = z.strictObject({
  'current-context': z.string().optional(),
  contexts: z.array(contextSchema).default([]),
});
export type Contexts = z.infer<typeof contextsSchema>;

export function contextsPath(env: NodeJS.ProcessEnv): string {
  const base =
    env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== ''
      ? env.XDG_CONFIG_HOME
      : join(env.HOME ?? homedir(), '.config');
  return join(base, 'cloudctl', 'config');
}

/** The file's contexts; none when it does not exist. */
export async function readContexts(path: string): Promise<Contexts> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { contexts: [] };
    throw new CliError('CONTEXT', `cannot read ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = load(text);
  } catch (error) {
    throw new CliError('CONTEXT', `${path} is not YAML: ${(error as Error).message}`);
  }
  const parsed = contextsSchema.safeParse(raw ?? {});
  if (!parsed.success)
    throw new CliError(
      'CONTEXT',
      `${path} is not a cloudctl contexts file: ${z.prettifyError(parsed.error)}`,
    );
  return parsed.data;
}

export async function writeContexts(path: string, contexts: Contexts): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, dump(contexts, { lineWidth: -1 }), { mode: 0o600 });
  // A file that existed before with wider permissions keeps them through writeFile's mode; the
  // temporary is new, but chmod says what we mean whatever the umask.
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

/** The contexts with `context` added, or replacing the one of its name, made current. */
export function withContext(contexts: Contexts, context: Context): Contexts {
  const others = contexts.contexts.filter((c) => c.name !== context.name);
  return { 'current-context': context.name, contexts: [...others, context] };
}

/** A context's default name: the server's host and port, as kubectl names clusters after theirs. */
export function contextName(server: string): string {
  return new URL(server).host;
}
