import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { aptInstallCommand, missingToolsReport, TEST_PACKAGES } from '../../scripts/check-test-tools.ts';

const root = join(import.meta.dirname, '../..');
const script = join(root, 'scripts/check-test-tools.ts');
const dir = mkdtempSync(join(tmpdir(), 'orch-agent-tools-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm test's pretest tool check", () => {
  it('lists the Debian packages .ci/run installs, the same ones', () => {
    const ci = readFileSync(join(root, '.ci/run'), 'utf8');
    const listed = /^PACKAGES='([^']*)'$/m.exec(ci)?.[1]?.split(' ');
    expect(listed).toEqual([...TEST_PACKAGES]);
    expect(TEST_PACKAGES).toEqual([
      'postgresql',
      'chromium',
      'python3-venv',
      'iproute2',
      'procps',
      'build-essential',
    ]);
  });

  it("is the command the README's test section shows", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toContain(aptInstallCommand(TEST_PACKAGES));
  });

  it('fails at once, naming each missing program and the one command that installs them', () => {
    // PATH holds nothing: no python3, ss, ps, gcc or go. PostgreSQL and Chromium are found by path, so
    // they are reported only where they are missing.
    const run = spawnSync(process.execPath, [script], { encoding: 'utf8', env: { PATH: dir } });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('npm test needs programs that are missing here:');
    expect(run.stderr).toContain(
      '  Python 3 with venv (python3 cannot import venv and ensurepip), for hadolint',
    );
    expect(run.stderr).toContain('  ss (ss is not on PATH)');
    expect(run.stderr).toContain('  ps (ps is not on PATH)');
    expect(run.stderr).toContain('  C compiler (gcc cannot compile against the C library headers)');
    expect(run.stderr).toMatch(/Go \(go is not on PATH\)/);
    expect(run.stderr).toMatch(
      /^ {4}apt-get update && apt-get install -y --no-install-recommends .*python3-venv iproute2 procps build-essential$/m,
    );
    expect(run.stderr).toContain('Go: see https://go.dev/doc/install');
  });

  it('refuses a python3 that cannot make a virtual environment with pip', () => {
    // Debian's python3 without python3-venv: venv imports, ensurepip does not.
    const fake = join(dir, 'python3');
    writeFileSync(fake, '#!/bin/sh\necho "No module named ensurepip" >&2\nexit 1\n');
    chmodSync(fake, 0o755);
    expect(missingToolsReport({ PATH: dir })).toContain(
      'Python 3 with venv (python3 cannot import venv and ensurepip)',
    );
  });

  it('passes on a machine with everything .ci/run installs', () => {
    expect(missingToolsReport(process.env)).toBeUndefined();
  });
});
