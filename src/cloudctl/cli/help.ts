// cloudctl --help.
export const USAGE = `Usage: cloudctl <command> [options]

The orch-agent control plane.

Commands:
  serve --config FILE   serve the agent gRPC endpoint (orchagent.v1, health, reflection)
                        until SIGTERM or SIGINT

Options:
  -c, --config FILE     cloudctl configuration (YAML)
  -h, --help            show this help
  -v, --version         print the version

Exit codes: 0 success, 1 invalid configuration (or the port or database cannot be used), 2 usage error.
Agent tokens are configured by hash: printf %s "$TOKEN" | sha256sum gives the hex after "sha256:".`;
