// `npm test`'s pretest step, first half: finds the system programs the tests run besides Node and npm,
// and when one is missing stops at once, before a long run fails half-way, naming each and the one
// command that installs them. It installs no system package itself: that is the machine owner's call
// (as root); .ci/run, which CI runs as root on a clean machine, installs the same packages
// (test/scripts/check-test-tools.test.ts holds the lists equal). What needs no root (the cluster
// binaries, OpenBao, the Python test tools) the second half fetches: test/cluster/build.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface TestTool {
  name: string;
  /** Which tests need it. */
  neededBy: string;
  /** The Debian package that brings it; undefined when the distribution's is not the one to use. */
  debianPackage?: string;
  /** Where to get it when no Debian package does. */
  elsewhere?: string;
  /** What is wrong, or undefined when it is usable. */
  problem(env: NodeJS.ProcessEnv): string | undefined;
}

const POSTGRES_BASE = '/usr/lib/postgresql';
/** Where Debian's package puts it; test/cloudctl/status-page/browser.ts launches this one. */
const CHROMIUM = '/usr/bin/chromium';

/** Whether the command runs and succeeds. */
function runs(command: string, args: string[], env: NodeJS.ProcessEnv): boolean {
  const run = spawnSync(command, args, { encoding: 'utf8', env });
  return run.error === undefined && run.status === 0;
}

export const TEST_TOOLS: ReadonlyArray<TestTool> = [
  {
    name: 'PostgreSQL server',
    neededBy: 'the storage tests, which run against a real server beside the embedded one',
    debianPackage: 'postgresql',
    problem: () => {
      const found =
        existsSync(POSTGRES_BASE) &&
        readdirSync(POSTGRES_BASE).some((v) => existsSync(join(POSTGRES_BASE, v, 'bin', 'initdb')));
      if (!found) return `no ${POSTGRES_BASE}/<version>/bin/initdb`;
      // Under root the test server runs as the `postgres` user, which the package creates.
      const users = existsSync('/etc/passwd') ? readFileSync('/etc/passwd', 'utf8') : '';
      if (process.getuid?.() === 0 && !/^postgres:/m.test(users))
        return 'running as root, and there is no postgres user to run the server as';
      return undefined;
    },
  },
  {
    name: 'Chromium',
    neededBy:
      "the status page test, which drives Debian's headless Chromium with playwright-core (it downloads no browser)",
    debianPackage: 'chromium',
    problem: () => (existsSync(CHROMIUM) ? undefined : `no ${CHROMIUM}`),
  },
  {
    name: 'Python 3 with venv',
    neededBy:
      'hadolint, schemathesis and the OpenBao download, installed by the pretest into a virtual environment under the cache folder',
    debianPackage: 'python3-venv',
    // Debian's python3 ships venv without ensurepip, which `python3 -m venv` needs to put pip in.
    problem: (env) =>
      runs('python3', ['-c', 'import venv, ensurepip'], env)
        ? undefined
        : 'python3 cannot import venv and ensurepip',
  },
  {
    name: 'ss',
    neededBy: 'the side-server binding test, which reads the listening sockets',
    debianPackage: 'iproute2',
    problem: (env) => (runs('ss', ['-V'], env) ? undefined : 'ss is not on PATH'),
  },
  {
    name: 'ps',
    neededBy: 'the demo test, which checks that no process is left behind',
    debianPackage: 'procps',
    problem: (env) => (runs('ps', ['-p', '1'], env) ? undefined : 'ps is not on PATH'),
  },
  {
    name: 'C compiler',
    neededBy: "the sign-in tests: Ory Hydra's in-memory SQLite is compiled through cgo",
    // gcc alone leaves out the C library's headers (libc6-dev is only its recommendation).
    debianPackage: 'build-essential',
    problem: (env) =>
      runs('gcc', ['-fsyntax-only', '-x', 'c', '-include', 'stdlib.h', '/dev/null'], env)
        ? undefined
        : 'gcc cannot compile against the C library headers',
  },
  {
    name: 'Go',
    neededBy: 'the cluster tests, whose API servers, kubectl, helm and grpcurl are built from Go modules',
    // Debian 12's golang is older than the modules in test/cluster/tools need.
    elsewhere: 'https://go.dev/doc/install (the Go that test/cluster/tools/go.mod names, or newer, on PATH)',
    problem: (env) => (runs('go', ['version'], env) ? undefined : 'go is not on PATH'),
  },
];

/** The one command that installs every Debian package in the list. */
export function aptInstallCommand(packages: ReadonlyArray<string>): string {
  return `apt-get update && apt-get install -y --no-install-recommends ${packages.join(' ')}`;
}

/** Every Debian package the tests need: the README's line, and .ci/run's list. */
export const TEST_PACKAGES = TEST_TOOLS.flatMap((t) =>
  t.debianPackage === undefined ? [] : [t.debianPackage],
);

/** The report for the missing tools, or undefined when every tool is there. */
export function missingToolsReport(env: NodeJS.ProcessEnv): string | undefined {
  const missing = TEST_TOOLS.flatMap((tool) => {
    const problem = tool.problem(env);
    return problem === undefined ? [] : [{ tool, problem }];
  });
  if (missing.length === 0) return undefined;
  const packages = missing.flatMap(({ tool }) =>
    tool.debianPackage === undefined ? [] : [tool.debianPackage],
  );
  return [
    'npm test needs programs that are missing here:',
    ...missing.map(({ tool, problem }) => `  ${tool.name} (${problem}), for ${tool.neededBy}`),
    ...(packages.length === 0 ? [] : ['Install them as root with:', `    ${aptInstallCommand(packages)}`]),
    ...missing.flatMap(({ tool }) =>
      tool.elsewhere === undefined ? [] : [`${tool.name}: see ${tool.elsewhere}`],
    ),
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const report = missingToolsReport(process.env);
  if (report !== undefined) {
    process.stderr.write(`${report}\n`);
    process.exit(1);
  }
}
