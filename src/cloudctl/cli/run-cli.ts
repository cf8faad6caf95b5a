// Parses cloudctl's command line and dispatches. Usage errors exit 2 with a pointer to --help.

import {
  answeredHelpOrVersion,
  daemonConfigFile,
  parseCommandLine,
  UsageError,
  withUsageErrors,
} from '../../lib/command-line.ts';
import { type CliIo, EXIT } from './cli-io.ts';
import { USAGE } from './help.ts';
import { serveCommand } from './serve-command.ts';

export function runCli(args: string[], io: CliIo): Promise<number> {
  return withUsageErrors('cloudctl', io.err, async () => {
    const { values, positionals } = parseCommandLine(args);
    if (answeredHelpOrVersion(values, USAGE, io.out)) return EXIT.ok;
    const [command, ...rest] = positionals;
    if (command === 'serve') return await serveCommand(daemonConfigFile('serve', rest, values.config), io);
    throw new UsageError(command === undefined ? 'no command given' : `unknown command '${command}'`);
  });
}
