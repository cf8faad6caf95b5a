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
export const TEST_GO_COMMANDS = [
  {
    moduleDir: fileURLToPath(new URL('../agent/observability/promcheck/', import.meta.url)),
    name: 'promcheck',
  },
] as const;

export async function goBinary(moduleDir: string, name: string): Promise<string> {
  const hash = createHash('sha256');
  for (const file of readdirSync(moduleDir)
    .filter((f) => /\.(go|mod|sum)$/.test(f))
    .sort()) {
    hash.update(file).update(readFileSync(join(moduleDir, file)));
  }
  const binary = join(cacheRoot(), 'go-tools', `${name}-${hash.digest('hex').slice(0, 16)}`);
  if (!existsSync(binary)) {
    // A failed build fails the test that needs the tool, with Go's own message.
    await run('go', ['build', '-o', binary, '.'], { cwd: moduleDir, maxBuffer: 16 << 20 });
  }
  return binary;
}
