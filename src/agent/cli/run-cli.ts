// Parses the command line and dispatches. Usage errors exit 2 with a pointer to --help.

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
import { USAGE } from './help.ts';
import { runCommand } from './run-command.ts';

export function runCli(args: string[], io: CliIo): Promise<number> {
  return withUsageErrors('orch-agent', io.err, async () => {
    const { values, positionals } = parseCommandLine(args);
    if (answeredHelpOrVersion(values, USAGE, io.out)) return EXIT.ok;
    const [command, ...rest] = positionals;
    if (command === 'run') return await runCommand(daemonConfigFile('run', rest, values.config), io);
    if (values.config !== undefined) throw new UsageError('--config belongs to the run command');
    if (command === 'config') {
      const { sub, file } = configSubcommand(rest);
      return sub === 'validate' ? await validateCommand(file, io) : await printCommand(file, io);
    }
    throw new UsageError(command === undefined ? 'no command given' : `unknown command '${command}'`);
  });
}
