// Opens embedded PGlite, starting a fresh database from a template rather than from initdb. initdb
// is most of a first start: about 5 s of WebAssembly on a quiet machine, 30 s and more on a loaded
// one, writing the same catalogs every time for a given PGlite release. So the first fresh database
// of a release is dumped, as initdb left it, to a template file in a folder of this user's; later
// fresh databases load it (about 1 s). The template is the bare cluster initdb makes, never our
// schema: migrations still run on it, so a template never outlives a change of ours.
//
// The folder is used only if it is a directory owned by this user that nobody else may write into
// (a template another user could replace would become our database). Without a usable folder, or
// when the dump cannot be written (a read-only disk), initdb runs as before. Several processes may
// make the template at once: each writes its own file and renames it into place, so a reader sees a
// whole template or none. PGlite refuses to load a template into a directory that holds a database,
// and we only ask it to for one without.
import { openAsBlob } from 'node:fs';
import { lstat, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { z } from 'zod';

/** Where templates go unless the caller says: a folder of this user's in the OS temp dir. */
export function defaultTemplateFolder(): string {
  return join(tmpdir(), `cloudctl-pglite-${process.getuid?.() ?? 'user'}`);
}

/** The running PGlite release: a template is valid only for the release that made it. */
async function pgliteRelease(): Promise<string> {
  const manifest = new URL('../package.json', import.meta.resolve('@electric-sql/pglite'));
  return z.object({ version: z.string() }).parse(JSON.parse(await readFile(manifest, 'utf8'))).version;
}

/** Whether `path` is a directory, or a file, only this user can write; anything else is not used. */
async function ownedByUs(path: string, kind: 'directory' | 'file'): Promise<boolean> {
  const stats = await lstat(path).catch(() => undefined);
  if (stats === undefined || (kind === 'directory' ? !stats.isDirectory() : !stats.isFile())) return false;
  const uid = process.getuid?.();
  // Group or others may write: someone else could put their file where ours is read.
  return uid === undefined || (stats.uid === uid && (stats.mode & 0o022) === 0);
}

/** The template's path in `folder` (made if missing), or undefined when the folder is not usable. */
async function templatePath(folder: string): Promise<string | undefined> {
  await mkdir(folder, { recursive: true, mode: 0o700 }).catch(() => undefined);
  if (!(await ownedByUs(folder, 'directory'))) return undefined;
  const release = await pgliteRelease().catch(() => undefined);
  return release === undefined ? undefined : join(folder, `pglite-${release}-initdb.tar`);
}

async function isFresh(dataDir: string): Promise<boolean> {
  if (dataDir.startsWith('memory://')) return true;
  return (await lstat(join(dataDir, 'PG_VERSION')).catch(() => undefined)) === undefined;
}

async function saveTemplate(db: PGlite, path: string): Promise<void> {
  const dump = await db.dumpDataDir('none');
  const partial = `${path}.${process.pid}.${Date.now()}.partial`;
  try {
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()), { mode: 0o600 });
    await rename(partial, path);
  } finally {
    await rm(partial, { force: true });
  }
}

/**
 * PGlite on `dataDir` (a directory, or `memory://`), ready for queries. A fresh database comes from
 * the template in `templateFolder` when there is one, and makes it when there is none; pass
 * undefined to always run initdb.
 */
export async function openPGlite(dataDir: string, templateFolder: string | undefined): Promise<PGlite> {
  const template =
    templateFolder !== undefined && (await isFresh(dataDir)) ? await templatePath(templateFolder) : undefined;
  if (template !== undefined && (await ownedByUs(template, 'file'))) {
    const db = new PGlite(dataDir, { loadDataDir: await openAsBlob(template) });
    try {
      await db.waitReady;
    } catch (error) {
      // Not a template PGlite can load (written by something else than saveTemplate): gone, so the
      // next start makes a new one; this start fails with the reason.
      await rm(template, { force: true });
      throw error;
    }
    return db;
  }
  const db = new PGlite(dataDir);
  await db.waitReady;
  // Best effort: a template that cannot be written costs the next start its initdb, nothing else.
  if (template !== undefined) await saveTemplate(db, template).catch(() => undefined);
  return db;
}
