// Parses cloudctl's command line and dispatches. Usage errors exit 2 with a pointer to --help.
import { parseArgs } from 'node:util';
import pkg from '../../../package.json' with { type: 'json' };
import { type CliIo, EXIT } from './cli-io.ts';
import { USAGE } from './help.ts';
import { serveCommand } from './serve-command.ts';

class UsageError extends Error {}

function parse(args: string[]) {
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

export async function runCli(args: string[], io: CliIo): Promise<number> {
  try {
    const { values, positionals } = parse(args);
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    if (values.version) {
      io.out(pkg.version);
      return EXIT.ok;
    }
    const [command, ...rest] = positionals;
    if (command === 'serve') {
      if (rest.length > 0)
        throw new UsageError(`'serve' takes no positional arguments (found ${rest.join(' ')})`);
      if (values.config === undefined) throw new UsageError("'serve' needs --config FILE");
      return await serveCommand(values.config, io);
    }
    throw new UsageError(command === undefined ? 'no command given' : `unknown command '${command}'`);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`cloudctl: ${error.message}\nRun 'cloudctl --help' for usage.`);
    return EXIT.usage;
  }
}
