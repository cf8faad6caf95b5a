// Finds the command in the table (one word, or two for `config ...`), parses its arguments and runs
// it. Usage errors exit 2 with a pointer to --help; -h/--help prints the command's own help.
import pkg from '../../../package.json' with { type: 'json' };
import type { CliIo } from '../../lib/cli-io.ts';
import { EXIT, UsageError, withUsageErrors } from '../../lib/command-line.ts';
import { commandHelp, parseCommandArgs } from './command-line/index.ts';
import { commands } from './commands.ts';
import { usage } from './help.ts';

export function runCli(args: string[], io: CliIo): Promise<number> {
  return withUsageErrors('cloudctl', io.err, async () => {
    const table = commands();
    const [first, second] = args;
    if (first === '-h' || first === '--help') {
      io.out(usage(table));
      return EXIT.ok;
    }
    if (first === '-v' || first === '--version') {
      io.out(pkg.version);
      return EXIT.ok;
    }
    if (first === undefined) throw new UsageError('no command given');
    if (first.startsWith('-')) throw new UsageError(`unknown option '${first}' (options follow the command)`);
    const group = table.filter((c) => c.name.startsWith(`${first} `));
    if (group.length > 0 && (second === undefined || second.startsWith('-'))) {
      if (second === '-h' || second === '--help') {
        io.out(usage(group));
        return EXIT.ok;
      }
      throw new UsageError(`'${first}' needs one of ${group.map((c) => c.name.split(' ')[1]).join(', ')}`);
    }
    const name = group.length > 0 ? `${first} ${second}` : first;
    const spec = table.find((c) => c.name === name);
    if (spec === undefined)
      throw new UsageError(
        group.length > 0 ? `unknown ${first} command '${second}'` : `unknown command '${first}'`,
      );
    const parsed = parseCommandArgs(spec, args.slice(name.split(' ').length));
    if (parsed === 'help') {
      io.out(commandHelp(spec));
      return EXIT.ok;
    }
    return await spec.run(parsed, io);
  });
}
