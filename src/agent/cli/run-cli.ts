// Parses the command line and dispatches. Usage errors exit 2 with a pointer to --help.

import {
  answeredHelpOrVersion,
  daemonConfigFile,
  parseCommandLine,
  UsageError,
  withUsageErrors,
} from '../../lib/command-line.ts';
import { type CliIo, EXIT } from './cli-io.ts';
import { printCommand, validateCommand } from './config-commands.ts';
import { USAGE } from './help.ts';
import { runCommand } from './run-command.ts';

function oneFile(positionals: string[], command: string): string {
  if (positionals.length !== 1) throw new UsageError(`'${command}' takes exactly one FILE`);
  return positionals[0] ?? '';
}

export function runCli(args: string[], io: CliIo): Promise<number> {
  return withUsageErrors('orch-agent', io.err, async () => {
    const { values, positionals } = parseCommandLine(args);
    if (answeredHelpOrVersion(values, USAGE, io.out)) return EXIT.ok;
    const [command, ...rest] = positionals;
    if (command === 'run') return await runCommand(daemonConfigFile('run', rest, values.config), io);
    if (values.config !== undefined) throw new UsageError('--config belongs to the run command');
    if (command === 'config') {
      const [sub, ...files] = rest;
      if (sub === 'validate') return await validateCommand(oneFile(files, 'config validate'), io);
      if (sub === 'print') return await printCommand(oneFile(files, 'config print'), io);
      throw new UsageError(
        sub === undefined ? "'config' needs validate or print" : `unknown config command '${sub}'`,
      );
    }
    throw new UsageError(command === undefined ? 'no command given' : `unknown command '${command}'`);
  });
}
