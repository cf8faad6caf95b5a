// Temporary directories for tests, removed after the test file that made them
// (test/support/remove-temp-dirs.ts, a setup file, does it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const created: string[] = [];

/** A temporary directory removed after the test file. */
export function tempDir(prefix = 'orch-agent-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Removes every directory `tempDir` made since the last call. */
export function removeTempDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}
