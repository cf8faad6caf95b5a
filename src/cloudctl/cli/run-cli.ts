// Parses cloudctl's command line and dispatches. Usage errors exit 2 with a pointer to --help.

import pkg from '../../../package.json' with { type: 'json' };
import { parseCommandLine, UsageError, withUsageErrors } from '../../lib/command-line.ts';
import { type CliIo, EXIT } from './cli-io.ts';
import { USAGE } from './help.ts';
import { serveCommand } from './serve-command.ts';

export function runCli(args: string[], io: CliIo): Promise<number> {
  return withUsageErrors('cloudctl', io.err, async () => {
    const { values, positionals } = parseCommandLine(args);
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
  });
}
