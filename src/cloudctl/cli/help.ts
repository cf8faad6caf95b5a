// cloudctl --help. It lists only what the binary does today.
export const USAGE = `Usage: cloudctl <command> [options]

The orch-agent control plane.

Commands:
  serve --config FILE      Resolve the config's secret references (encrypted:...), then serve
                           the agent gRPC endpoint (grpc.port, default 9091) and the HTTP API
                           (http.port, default 7002) until SIGTERM or SIGINT (exit 0).
  config validate FILE     Check a config file, its secret references without fetching them.
                           Prints every problem as file:line:column: severity: key.path: message
  config print FILE        Print the effective config as YAML: defaults filled, paths made
                           absolute, secret references as written, secrets in clear as ***.
  deploy -f FILE           Check a deployment file, send it (manifest paths inlined) to cloudctl
                           and follow it, printing its log; exit 0 only when it succeeds, 1 when
                           it fails, is rolled back or is refused. Ctrl-C stops following only.
                           Token from CLOUDCTL_TOKEN; server from --server URL or CLOUDCTL_URL
                           (default http://localhost:7002). --no-wait: submit, print the id.

Options:
  -c, --config FILE        cloudctl configuration (YAML), for serve
  -f, --file FILE          deployment file, for deploy
  -s, --server URL         cloudctl's HTTP API, for deploy
  -h, --help               Show this help.
  -v, --version            Print the version.

Exit status: 0 success, 1 invalid config (or the port or database cannot be used; for deploy, a
deployment that did not succeed), 2 usage error.
Tokens are configured by hash: printf %s "$TOKEN" | sha256sum gives the hex after "sha256:".
Config reference: docs/cloudctl-configuration.md
HTTP API: Swagger 2.0 at /v2/api-docs; /health, /ready and /metrics need no token; every other
route takes Authorization: Bearer <a user's token>.`;
