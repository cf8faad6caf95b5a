// Builds a small Go command from its own module in the repository into the machine's cache, keyed by
// a hash of its go.mod, go.sum and sources, so a second run (and CI on this machine) reuses it.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cacheRoot } from '../cluster/binary-cache.ts';

const run = promisify(execFile);

/** The Go commands tests build this way: built ahead by npm test's pretest, so no test waits on Go. */
export const TEST_GO_COMMANDS: ReadonlyArray<GoCommand> = [
  {
    moduleDir: fileURLToPath(new URL('../agent/observability/promcheck/', import.meta.url)),
    name: 'promcheck',
  },
  {
    // Ory Hydra, the OpenID Connect provider of the sign-in tests. Its in-memory database is SQLite,
    // compiled in only with the sqlite tag (through cgo, so a C compiler must be present).
    moduleDir: fileURLToPath(new URL('../cloudctl/auth/hydra/', import.meta.url)),
    name: 'hydra',
    tags: ['sqlite'],
  },
  {
    // metrics-server, the metrics.k8s.io source of clusters started with `metrics: true`
    // (test/cluster/metrics-server.ts); its own module, as its k8s.io versions are not the cluster's.
    moduleDir: fileURLToPath(new URL('../cluster/metrics-server/', import.meta.url)),
    name: 'metrics-server',
  },
  {
    // Prometheus, the server the Prometheus analysis provider queries (test/cluster/prometheus.ts):
    // its own command from the module go.mod pins; remove_all_sd leaves out the cloud discoveries.
    moduleDir: fileURLToPath(new URL('../cluster/prometheus/', import.meta.url)),
    name: 'prometheus',
    tags: ['remove_all_sd'],
    pkg: 'github.com/prometheus/prometheus/cmd/prometheus',
  },
  {
    // pprof, which reads the agent's profiles in the pprof server's tests (Go's distribution builds
    // `go tool pprof` on first use, which took longer than a test may wait on a cold Go cache).
    moduleDir: fileURLToPath(new URL('../agent/observability/pprof/', import.meta.url)),
    name: 'pprof',
    pkg: 'github.com/google/pprof',
  },
];

export interface GoCommand {
  moduleDir: string;
  name: string;
  /** Go build tags. */
  tags?: readonly string[];
  /** The package to build, when it is not the module's own (a dependency's command). Default `.`. */
  pkg?: string;
}

/** The command of that name, for the test that runs it. */
export function testGoCommand(name: string): GoCommand {
  const command = TEST_GO_COMMANDS.find((c) => c.name === name);
  if (command === undefined) throw new Error(`no test Go command named ${name}`);
  return command;
}

export async function goBinary(
  moduleDir: string,
  name: string,
  tags: readonly string[] = [],
  pkg = '.',
): Promise<string> {
  const hash = createHash('sha256');
  hash.update(tags.join(','));
  if (pkg !== '.') hash.update(pkg);
  for (const file of readdirSync(moduleDir)
    .filter((f) => /\.(go|mod|sum)$/.test(f))
    .sort()) {
    hash.update(file).update(readFileSync(join(moduleDir, file)));
  }
  const binary = join(cacheRoot(), 'go-tools', `${name}-${hash.digest('hex').slice(0, 16)}`);
  if (!existsSync(binary)) {
    // A failed build fails the test that needs the tool, with Go's own message.
    const tagArgs = tags.length === 0 ? [] : ['-tags', tags.join(',')];
    await run('go', ['build', ...tagArgs, '-o', binary, pkg], { cwd: moduleDir, maxBuffer: 16 << 20 });
  }
  return binary;
}
