// Parses cloudctl's command line and dispatches. Usage errors exit 2 with a pointer to --help.

import type { CliIo } from '../../lib/cli-io.ts';
import {
  answeredHelpOrVersion,
  configSubcommand,
  daemonConfigFile,
  EXIT,
  parseCommandLine,
  UsageError,
  withUsageErrors,
} from '../../lib/command-line.ts';
import { printCommand, validateCommand } from './config-commands.ts';
import { deployCommand, parseDeployCommandLine } from './deploy-command.ts';
import { USAGE } from './help.ts';
import { serveCommand } from './serve-command.ts';

export function runCli(args: string[], io: CliIo): Promise<number> {
  return withUsageErrors('cloudctl', io.err, async () => {
    // `deploy` has options of its own (-f, --server); the others share the common ones.
    if (args[0] === 'deploy') {
      const options = parseDeployCommandLine(args.slice(1), io.env);
      if (options === 'help') io.out(USAGE);
      return options === 'help' ? EXIT.ok : await deployCommand(options, io);
    }
    const { values, positionals } = parseCommandLine(args);
    if (answeredHelpOrVersion(values, USAGE, io.out)) return EXIT.ok;
    const [command, ...rest] = positionals;
    if (command === 'serve') return await serveCommand(daemonConfigFile('serve', rest, values.config), io);
    if (values.config !== undefined) throw new UsageError('--config belongs to the serve command');
    if (command === 'config') {
      const { sub, file } = configSubcommand(rest);
      return sub === 'validate' ? await validateCommand(file, io) : await printCommand(file, io);
    }
    throw new UsageError(command === undefined ? 'no command given' : `unknown command '${command}'`);
  });
}
