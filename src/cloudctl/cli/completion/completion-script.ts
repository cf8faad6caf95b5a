// `cloudctl completion bash|zsh`: a completion script written from the command table itself, so it
// offers exactly the commands, options, kinds and values the parser accepts. zsh runs the bash
// function through bashcompinit, as many tools' zsh completions do.
import { EXIT } from '../../../lib/command-line.ts';
import { type CommandSpec, HELP_OPTION } from '../command-line/index.ts';

const SHELLS = ['bash', 'zsh'] as const;

/** A word list as a bash string: every word is ours (no quotes or spaces), but stay safe anyway. */
const words = (list: readonly string[]) => `'${list.join(' ').replaceAll("'", '')}'`;

function caseFor(spec: CommandSpec): string[] {
  const options = [...spec.options, HELP_OPTION];
  const flags = options.flatMap((o) => [`--${o.name}`, ...(o.short === undefined ? [] : [`-${o.short}`])]);
  const valued = options.filter((o) => o.value !== undefined);
  const prevCases = valued.map((o) => {
    const names = [`--${o.name}`, ...(o.short === undefined ? [] : [`-${o.short}`])].join('|');
    return o.choices === undefined
      ? `        ${names}) return ;;`
      : `        ${names}) COMPREPLY=($(compgen -W ${words(o.choices)} -- "$cur")); return ;;`;
  });
  return [
    `    '${spec.name}')`,
    `      opts=${words(flags)}; args=${words(spec.completes ?? [])}`,
    ...(prevCases.length === 0 ? [] : ['      case "$prev" in', ...prevCases, '      esac']),
    '      ;;',
  ];
}

export function bashCompletion(commands: readonly CommandSpec[]): string {
  const top = [...new Set(commands.map((c) => c.name.split(' ')[0] ?? ''))];
  const groups = [...new Set(commands.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0]))];
  const groupCases = groups.map((group) => {
    const subs = commands
      .filter((c) => c.name.startsWith(`${group} `))
      .map((c) => c.name.split(' ')[1] ?? '');
    return `    ${group}) if [[ $COMP_CWORD -eq 2 ]]; then COMPREPLY=($(compgen -W ${words(subs)} -- "$cur")); return; fi; command="${group} \${COMP_WORDS[2]}"; first=3 ;;`;
  });
  return [
    '# cloudctl completion for bash: source <(cloudctl completion bash)',
    '_cloudctl() {',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, not a template
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${...}, not a template
    '  local command="${COMP_WORDS[1]}" first=2 opts="" args=""',
    '  if [[ $COMP_CWORD -eq 1 ]]; then',
    `    COMPREPLY=($(compgen -W ${words([...top, '--help', '--version'])} -- "$cur")); return`,
    '  fi',
    '  case "$command" in',
    ...groupCases,
    '  esac',
    '  case "$command" in',
    ...commands.flatMap(caseFor),
    '    *) return ;;',
    '  esac',
    '  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur"))',
    '  elif [[ $COMP_CWORD -eq $first && -n "$args" ]]; then COMPREPLY=($(compgen -W "$args" -- "$cur"))',
    '  fi',
    '}',
    'complete -o default -F _cloudctl cloudctl',
  ].join('\n');
}

export function zshCompletion(commands: readonly CommandSpec[]): string {
  return [
    '#compdef cloudctl',
    '# cloudctl completion for zsh: source <(cloudctl completion zsh)',
    'autoload -U +X bashcompinit && bashcompinit',
    bashCompletion(commands),
  ].join('\n');
}

/** The command, given the table it describes (passed in: the table lists this command too). */
export function completionCommand(table: () => readonly CommandSpec[]): CommandSpec {
  return {
    name: 'completion',
    synopsis: 'bash|zsh',
    summary: 'Print a shell completion script: source <(cloudctl completion bash).',
    details:
      'bash: add `source <(cloudctl completion bash)` to ~/.bashrc.\nzsh: add `source <(cloudctl completion zsh)` to ~/.zshrc.',
    options: [],
    completes: SHELLS,
    positionals: { min: 1, max: 1 },
    run: async (args, io) => {
      io.out(args.positionals[0] === 'zsh' ? zshCompletion(table()) : bashCompletion(table()));
      return EXIT.ok;
    },
  };
}
