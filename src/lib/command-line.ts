// The command-line conventions both binaries share: `--config FILE`, `--help`, `--version`, `config
// validate|print FILE`; a usage error is reported with a pointer to --help and exit status 2.
import { parseArgs } from 'node:util';
import pkg from '../../package.json' with { type: 'json' };
import { CodedError } from './coded-error.ts';

export class UsageError extends CodedError<'USAGE'> {
  constructor(message: string) {
    super('USAGE', message);
  }
}

/** Exit statuses of both programs: `failed` is cloudctl's client commands' (a request that failed). */
export const EXIT = { ok: 0, invalidConfig: 1, failed: 1, usage: 2 } as const;

export function parseCommandLine(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        config: { type: 'string', short: 'c' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** Runs a command, turning a UsageError into its message and exit status 2. */
export async function withUsageErrors(
  program: string,
  err: (text: string) => void,
  run: () => Promise<number>,
): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(`${program}: ${error.message}\nRun '${program} --help' for usage.`);
    return EXIT.usage;
  }
}

/** Prints the usage or the version when the command line asks for one; true when it did. */
export function answeredHelpOrVersion(
  values: { help?: boolean | undefined; version?: boolean | undefined },
  usage: string,
  out: (text: string) => void,
): boolean {
  if (values.help) out(usage);
  else if (values.version) out(pkg.version);
  else return false;
  return true;
}

/** The `--config FILE` of a long-running command (`run`, `serve`), which takes no positionals. */
export function daemonConfigFile(command: string, rest: string[], config: string | undefined): string {
  if (rest.length > 0)
    throw new UsageError(`'${command}' takes no positional arguments (found ${rest.join(' ')})`);
  if (config === undefined) throw new UsageError(`'${command}' needs --config FILE`);
  return config;
}

/** `config validate FILE` and `config print FILE`, given what follows `config`. */
export function configSubcommand(rest: string[]): { sub: 'validate' | 'print'; file: string } {
  const [sub, ...files] = rest;
  if (sub !== 'validate' && sub !== 'print')
    throw new UsageError(
      sub === undefined ? "'config' needs validate or print" : `unknown config command '${sub}'`,
    );
  if (files.length !== 1) throw new UsageError(`'config ${sub}' takes exactly one FILE`);
  return { sub, file: files[0] ?? '' };
}
