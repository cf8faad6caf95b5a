// Builds a Go peer (a module under bench/peers/) once into the cache outside the clone, keyed by a
// hash of its sources, so a benchmark runs Go only when the peer's code or its dependencies changed.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, constants, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheRoot } from '../../test/cluster/binary-cache.ts';
import { formatDuration } from '../../test/cluster/elapsed.ts';

export interface GoPeerModule {
  /** The binary's name, and the prefix of its cache directory. */
  readonly name: string;
  /** The module's directory (holding go.mod). */
  readonly dir: string;
  /** The files whose content keys the build: go.mod, go.sum and every source file. */
  readonly inputs: readonly string[];
}

/** The peer's binary, built on first use; later calls with unchanged sources do not run Go. */
export async function buildGoPeer(
  module: GoPeerModule,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const hash = createHash('sha256');
  for (const name of module.inputs) {
    hash.update(name);
    hash.update('\0');
    hash.update(await readFile(join(module.dir, name)));
    hash.update('\0');
  }
  const dir = join(cacheRoot(env), 'bench', `${module.name}-${hash.digest('hex').slice(0, 12)}`);
  const binary = join(dir, module.name);
  try {
    await access(binary, constants.X_OK);
    return binary;
  } catch {
    // Not built yet.
  }
  await mkdir(dir, { recursive: true });
  // Built under a temporary name and renamed, so an interrupted build never leaves a file that a
  // later run would take for a complete binary.
  const partial = `${binary}.partial-${process.pid}`;
  const started = performance.now();
  try {
    // -buildvcs=false: the binary must not depend on the state of the clone, which is not hashed.
    // Go's stdout goes to our stderr, keeping our stdout for whatever the benchmark prints.
    const child = spawn('go', ['build', '-buildvcs=false', '-o', partial, '.'], {
      cwd: module.dir,
      env,
      stdio: ['ignore', process.stderr, 'inherit'],
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', (e) => reject(new Error(`go: ${e.message} (is Go installed and on PATH?)`)));
      child.once('close', resolve);
    });
    if (code !== 0) throw new Error(`go build in ${module.dir} failed (exit ${code})`);
    await rename(partial, binary);
  } finally {
    await rm(partial, { force: true });
  }
  process.stderr.write(
    `[${module.name}-peer] built ${binary} in ${formatDuration(performance.now() - started)}\n`,
  );
  return binary;
}
