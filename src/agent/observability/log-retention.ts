// What happens to a log file once pino-roll has moved on from it: gzip it when `compress` is set,
// then keep at most `maxBackups` rotated files and none older than `maxAgeDays` (lumberjack's rules,
// which the spec's settings come from). pino-roll itself only numbers and switches files.
import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

export interface RetentionSettings {
  maxBackups: number;
  maxAgeDays: number;
  compress: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** pino-roll names files `<stem>.<n><ext>`; rotated ones may carry `.gz` after that. Captures `n`. */
function rotatedPattern(configuredFile: string): RegExp {
  const ext = extname(configuredFile) || '.log';
  const stem = basename(configuredFile, extname(configuredFile));
  const quote = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${quote(stem)}\\.(\\d+)${quote(ext)}(?:\\.gz)?$`);
}

export async function gzipFile(file: string): Promise<string> {
  const target = `${file}.gz`;
  await pipeline(createReadStream(file), createGzip(), createWriteStream(target));
  await unlink(file);
  return target;
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw error;
    },
  );
}

/**
 * Reads the file pino-roll is writing now. A prune reads it once it has listed the directory: a
 * retirement may wait behind others and compress for a while, and the file that was being written
 * when it was queued may be a backup by then.
 */
export type ActiveLogFile = () => string;

/** Called with the file just closed by a rotation. */
export async function retireLogFile(
  configuredFile: string,
  closedFile: string,
  activeFile: ActiveLogFile,
  settings: RetentionSettings,
  now: number,
): Promise<void> {
  // Rotations can outpace retirements (a burst of logging while gzip runs), and each retirement runs
  // after the one before it (logger.ts): an earlier prune may already have removed this file as one
  // beyond maxBackups. Then there is nothing to compress (gzipping it would fail, and leave an empty
  // .gz that counts as a backup).
  if (settings.compress && (await exists(closedFile))) await gzipFile(closedFile);
  await pruneLogFiles(configuredFile, activeFile, settings, now);
}

/**
 * Removes rotated files beyond `maxBackups` or older than `maxAgeDays`. Runs after each rotation and
 * once when the logger opens its file, as lumberjack does: an agent logs little and may not rotate
 * for weeks, and backups left by earlier runs must not outlive their age until then.
 *
 * The newest backups are the highest-numbered: pino-roll numbers files in the order it opens them,
 * continuing from the highest number on a restart. Modification times cannot rank them: gzip writes
 * a new file, so a backup compressed late (its retirement queued behind a burst of rotations) looks
 * newer than plain backups rotated after it (docs/decisions.md, "Log backups are ranked by their
 * rotation number"). The mtime still gives a file's age, and orders files of one number
 * (agent.0.log beside agent.00.log).
 */
export async function pruneLogFiles(
  configuredFile: string,
  activeFile: ActiveLogFile,
  settings: RetentionSettings,
  now: number,
): Promise<void> {
  const dir = dirname(activeFile());
  const pattern = rotatedPattern(configuredFile);
  const names = await readdir(dir);
  // Read after the listing: a file opened since is then either not listed or the active one, and
  // the file it replaced is counted as the newest backup it now is.
  const active = activeFile();
  const rotated: Array<{ path: string; number: number; mtime: number }> = [];
  for (const name of names) {
    const path = join(dir, name);
    const match = pattern.exec(name);
    if (path === active || match === null) continue;
    rotated.push({ path, number: Number(match[1]), mtime: (await stat(path)).mtimeMs });
  }
  rotated.sort((a, b) => b.number - a.number || b.mtime - a.mtime);
  const doomed = rotated.filter(
    (file, i) =>
      (settings.maxBackups > 0 && i >= settings.maxBackups) ||
      (settings.maxAgeDays > 0 && now - file.mtime > settings.maxAgeDays * DAY_MS),
  );
  await Promise.all(doomed.map((file) => unlink(file.path).catch(() => undefined)));
}
