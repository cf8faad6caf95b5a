// A cloudctl command as data: its name, synopsis, options and what it runs. One table of these drives
// the parser, each command's --help, the top-level usage and the completion scripts, so what --help
// says a command takes is exactly what its parser accepts and what completion offers.
import { parseArgs } from 'node:util';
import type { CliIo } from '../../../lib/cli-io.ts';
import { UsageError } from '../../../lib/command-line.ts';

export interface OptionSpec {
  /** The long name, without dashes. */
  name: string;
  short?: string;
  /** A flag, or an option with a value (`value` names it in the help: FILE, URL). */
  value?: string;
  /** The values it takes, when they are a closed list (checked, and offered by completion). */
  choices?: readonly string[];
  multiple?: boolean;
  description: string;
}

/** What a command's run gets: its positionals and its options, read by name. */
export class ParsedArgs {
  readonly positionals: readonly string[];
  readonly #values: Record<string, string | boolean | (string | boolean)[] | undefined>;

  constructor(
    positionals: readonly string[],
    values: Record<string, string | boolean | (string | boolean)[] | undefined>,
  ) {
    this.positionals = positionals;
    this.#values = values;
  }

  string(name: string): string | undefined {
    const value = this.#values[name];
    return typeof value === 'string' ? value : undefined;
  }

  strings(name: string): string[] {
    const value = this.#values[name];
    if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
    return typeof value === 'string' ? [value] : [];
  }

  flag(name: string): boolean {
    return this.#values[name] === true;
  }
}

export interface CommandSpec {
  /** One word, or two for a group's command ('config validate'). */
  name: string;
  /** What follows the name in the usage line: 'KIND [NAME] [options]'. */
  synopsis: string;
  /** One line for the command list. */
  summary: string;
  /** More lines for the command's own --help. */
  details?: string;
  options: readonly OptionSpec[];
  /** The words completion offers for the first positional. */
  completes?: readonly string[];
  positionals: { min: number; max: number };
  run(args: ParsedArgs, io: CliIo): Promise<number>;
}

export const HELP_OPTION: OptionSpec = { name: 'help', short: 'h', description: 'Show this help.' };

export const EXIT_STATUS_TEXT =
  'Exit status: 0 success; 1 failure (the server cannot be reached, refused the token (401) or the\n' +
  'request (403), found nothing (404), or what was asked for failed); 2 usage error.';

/** Parses a command's arguments; 'help' when -h/--help is among them (it wins over any other problem). */
export function parseCommandArgs(spec: CommandSpec, args: string[]): ParsedArgs | 'help' {
  const wantsHelp = args.includes('--help') || args.includes('-h');
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: Object.fromEntries(
        [...spec.options, HELP_OPTION].map((o) => [
          o.name,
          {
            type: o.value === undefined ? ('boolean' as const) : ('string' as const),
            ...(o.short === undefined ? {} : { short: o.short }),
            ...(o.multiple === true ? { multiple: true } : {}),
          },
        ]),
      ),
    });
  } catch (error) {
    if (wantsHelp) return 'help';
    throw new UsageError(`${spec.name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (wantsHelp) return 'help';
  const args_ = new ParsedArgs(parsed.positionals, parsed.values);
  checkPositionals(spec, parsed.positionals);
  for (const option of spec.options) {
    if (option.choices === undefined) continue;
    for (const value of args_.strings(option.name)) {
      if (!option.choices.includes(value))
        throw new UsageError(
          `${spec.name}: --${option.name} must be one of ${option.choices.join(', ')}, found '${value}'`,
        );
    }
  }
  return args_;
}

function checkPositionals(spec: CommandSpec, positionals: readonly string[]): void {
  const { min, max } = spec.positionals;
  if (positionals.length < min) throw new UsageError(`'${spec.name}' needs ${spec.synopsis.split(' [')[0]}`);
  if (positionals.length > max)
    throw new UsageError(
      max === 0
        ? `'${spec.name}' takes no positional arguments (found ${positionals.join(' ')})`
        : `'${spec.name}' takes at most ${max} argument${max === 1 ? '' : 's'} (found ${positionals.join(' ')})`,
    );
  if (spec.completes === undefined || positionals[0] === undefined) return;
  if (!spec.completes.includes(positionals[0]))
    throw new UsageError(
      `'${spec.name}' does not know '${positionals[0]}': one of ${spec.completes.join(', ')}`,
    );
}

/** `-o, --output FORMAT` as the help shows it. */
function optionLabel(option: OptionSpec): string {
  const long = `--${option.name}${option.value === undefined ? '' : ` ${option.value}`}`;
  return option.short === undefined ? `    ${long}` : `-${option.short}, ${long}`;
}

/** Lines of a two-column list, the second column aligned and wrapped under itself. */
export function columns(rows: ReadonlyArray<readonly [string, string]>, indent = 2): string[] {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.flatMap(([left, right]) =>
    right
      .split('\n')
      .map((line, i) => `${' '.repeat(indent)}${(i === 0 ? left : '').padEnd(width)}${line}`.trimEnd()),
  );
}

/** The command's own --help. */
export function commandHelp(spec: CommandSpec): string {
  const options = [...spec.options, HELP_OPTION].map((o): [string, string] => [
    optionLabel(o),
    o.choices === undefined ? o.description : `${o.description} (${o.choices.join('|')})`,
  ]);
  return [
    `Usage: cloudctl ${spec.name} ${spec.synopsis}`.trimEnd(),
    '',
    spec.summary,
    ...(spec.details === undefined ? [] : ['', spec.details]),
    '',
    'Options:',
    ...columns(options),
    '',
    EXIT_STATUS_TEXT,
  ].join('\n');
}
