// Generates the TypeScript types of the agent <-> control plane contract (proto/orchagent/v1) into
// src/proto/gen with @grpc/proto-loader's pure-JS generator. `--check` generates into a temporary
// folder and fails when the committed types differ, so they cannot drift from the .proto files.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'src/proto/gen');
const GENERATOR = join(ROOT, 'node_modules/@grpc/proto-loader/build/bin/proto-loader-gen-types.js');
/** One entry file per service; the generator writes one root type per file. */
const ENTRY_FILES = [
  'orchagent/v1/session.proto',
  'orchagent/v1/caching.proto',
  'orchagent/v1/operations.proto',
];
/** Must agree with LOADER_OPTIONS in src/proto/load.ts: the types describe what the loader produces. */
const OPTIONS = ['--longs', 'String', '--enums', 'String', '--defaults', '--oneofs'];

function generate(outDir: string): void {
  execFileSync(
    process.execPath,
    [
      GENERATOR,
      '--grpcLib',
      '@grpc/grpc-js',
      ...OPTIONS,
      '--includeComments',
      // nodenext ESM needs the extension on relative imports.
      '--importFileExtension',
      '.ts',
      '-I',
      'proto',
      '--outDir',
      outDir,
      ...ENTRY_FILES,
    ],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
  );
}

async function listFiles(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(dir, path), await readFile(path, 'utf8'));
  }
  return files;
}

async function check(): Promise<number> {
  const tmp = await mkdtemp(join(tmpdir(), 'proto-gen-'));
  try {
    generate(tmp);
    const fresh = await listFiles(tmp);
    const committed = await listFiles(OUT);
    const stale = [...new Set([...fresh.keys(), ...committed.keys()])]
      .filter((file) => fresh.get(file) !== committed.get(file))
      .sort();
    if (stale.length === 0) return 0;
    process.stderr.write(
      `src/proto/gen is out of date with proto/ (${stale.join(', ')}); run 'npm run proto:gen'.\n`,
    );
    return 1;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

if (process.argv.includes('--check')) {
  process.exitCode = await check();
} else {
  await rm(OUT, { recursive: true, force: true });
  generate(OUT);
}
