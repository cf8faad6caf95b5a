// The command table's shapes: a command as data, its parser, its help.
export {
  type CommandSpec,
  columns,
  commandHelp,
  EXIT_STATUS_TEXT,
  HELP_OPTION,
  type OptionSpec,
  ParsedArgs,
  parseCommandArgs,
} from './command-spec.ts';
