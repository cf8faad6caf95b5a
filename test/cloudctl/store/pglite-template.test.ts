// A fresh embedded database starts from the template the first one left (pglite-template.ts), not from
// initdb; the template is shared only through a folder nobody else may write, and a database that
// exists is opened as it is. Which cluster a database came from is told by its system identifier:
// initdb draws a new one every time, a database loaded from a template has the template's.
import { chmod, copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/cloudctl/store/index.ts';

const root = await mkdtemp(join(tmpdir(), 'pglite-template-'));
afterAll(() => rm(root, { recursive: true, force: true }));

async function systemId(db: Kysely<unknown>): Promise<string> {
  const { rows } = await sql<{
    id: string;
  }>`select system_identifier::text as id from pg_control_system()`.execute(db);
  return rows[0]?.id ?? '';
}

function open(dataDir: string, pgliteTemplates: string): Promise<Kysely<unknown>> {
  return openDatabase<unknown>({ kind: 'pglite', dataDir }, {}, { pgliteTemplates });
}

/** The first fresh database's folder, the template it left, and that database's system identifier. */
const made = { folder: join(root, 'templates'), name: '', origin: '' };
beforeAll(async () => {
  const first = await open('memory://', made.folder);
  made.origin = await systemId(first);
  await sql`create table mine (a int)`.execute(first);
  await first.destroy();
  [made.name = ''] = await readdir(made.folder);
});

describe('a fresh PGlite database', () => {
  it('leaves a template named for the PGlite release, in a folder only this user may write', async () => {
    expect(await readdir(made.folder)).toEqual([expect.stringMatching(/^pglite-\d+\.\d+\.\d+-initdb\.tar$/)]);
  });

  it('starts from the template: the same cluster, without what the first database wrote later', async () => {
    const onDisk = join(root, 'on-disk');
    const second = await open(onDisk, made.folder);
    expect(await systemId(second)).toBe(made.origin);
    const { rows } = await sql`select 1 from pg_tables where tablename = 'mine'`.execute(second);
    expect(rows).toEqual([]);
    await sql`create table kept (a int)`.execute(second);
    await sql`insert into kept values (7)`.execute(second);
    await second.destroy();

    // Its directory holds a database now: opened as it is, with what was written.
    const again = await open(onDisk, made.folder);
    expect((await sql<{ a: number }>`select a from kept`.execute(again)).rows).toEqual([{ a: 7 }]);
    await again.destroy();
  });

  it('runs initdb, and leaves nothing, when the folder may be written by others', async () => {
    const folder = join(root, 'open-folder');
    await mkdir(folder);
    await chmod(folder, 0o777);
    // A file planted where the template would be: loading it would fail the open.
    await writeFile(join(folder, made.name), 'not a data directory');
    const db = await open('memory://', folder);
    expect(await systemId(db)).not.toBe(made.origin);
    await db.destroy();
    expect(await readdir(folder)).toEqual([made.name]);
  });

  it('fails the start on a template PGlite cannot load, and removes it so the next start makes one', async () => {
    const folder = join(root, 'broken');
    await mkdir(folder, { mode: 0o700 });
    await writeFile(join(folder, made.name), 'not a data directory', { mode: 0o600 });
    await expect(open('memory://', folder)).rejects.toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
    expect(await readdir(folder)).toEqual([]);
    // A good template in the same place is used again.
    await copyFile(join(made.folder, made.name), join(folder, made.name));
    const db = await open('memory://', folder);
    expect(await systemId(db)).toBe(made.origin);
    await db.destroy();
  });
});
