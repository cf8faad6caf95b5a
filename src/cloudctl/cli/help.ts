// cloudctl --help. It lists only what the binary does today.
export const USAGE = `Usage: cloudctl <command> [options]

The orch-agent control plane.

Commands:
  serve --config FILE      Serve the agent gRPC endpoint (grpc.port, default 9091) and the HTTP
                           API (http.port, default 7002) until SIGTERM or SIGINT (exit 0).
  config validate FILE     Check a config file. Prints every problem as
                           file:line:column: severity: key.path: message
  config print FILE        Print the effective config as YAML: defaults filled, paths made
                           absolute, the database.url password shown as ***.

Options:
  -c, --config FILE        cloudctl configuration (YAML), for serve
  -h, --help               Show this help.
  -v, --version            Print the version.

Exit status: 0 success, 1 invalid config (or the port or database cannot be used), 2 usage error.
Tokens are configured by hash: printf %s "$TOKEN" | sha256sum gives the hex after "sha256:".
Config reference: docs/cloudctl-configuration.md
HTTP API: Swagger 2.0 at /v2/api-docs; /health, /ready and /metrics need no token; every other
route takes Authorization: Bearer <a user's token>.`;
