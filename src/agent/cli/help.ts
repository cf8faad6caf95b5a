// The text of `orch-agent --help`. It lists only what the binary does today.

export const USAGE = `Usage: orch-agent <command> [options]

Commands:
  run --config FILE        Start the agent with the given config file. SIGTERM or SIGINT
                           stops it cleanly (exit 0).
  config validate FILE     Check a config file. Prints every problem as
                           file:line:column: severity: key.path: message
  config print FILE        Print the effective config: the chosen variant's defaults filled in,
                           secret values replaced by their reference or <redacted>.

Options:
  -h, --help               Show this help.
  -v, --version            Print the version.

Exit status: 0 success, 1 invalid config, 2 usage error.
Config reference: docs/configuration.md`;
