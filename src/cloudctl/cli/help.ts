// cloudctl --help: written from the command table, so it lists what the binary does and nothing else.
import { type CommandSpec, columns, EXIT_STATUS_TEXT } from './command-line/index.ts';

export function usage(table: readonly CommandSpec[]): string {
  return [
    'Usage: cloudctl <command> [options]',
    '',
    'The orch-agent control plane, and a client of its HTTP API.',
    '',
    'Commands:',
    ...columns(
      table.map((c): [string, string] => [
        `${c.name} ${c.synopsis.replace(/ ?\[options\]$/, '')}`.trimEnd(),
        c.summary,
      ]),
    ),
    '',
    'Options:',
    ...columns([
      ['-h, --help', "Show this help; after a command, that command's."],
      ['-v, --version', 'Print the version.'],
    ]),
    '',
    "Run 'cloudctl <command> --help' for a command's options. Client commands talk to --server URL,",
    'else CLOUDCTL_URL, else the current context (cloudctl login), else http://localhost:7002, with',
    'CLOUDCTL_TOKEN or the token stored for that server.',
    EXIT_STATUS_TEXT,
    'HTTP API: Swagger 2.0 at /v2/api-docs; /health, /ready and /metrics need no token; every other',
    "route takes Authorization: Bearer <a user's token>. Docs: docs/cli.md",
  ].join('\n');
}
