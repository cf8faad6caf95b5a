// logging.maxAgeDays (spec: "days to keep backups"), with logging.file and rotation by maxSizeMb:
// rotated files older than the age are removed when the logger rotates and when it starts (as
// lumberjack, where the setting comes from, does on opening its file), so an agent that logs too
// little to rotate for weeks still drops old backups on its next start. Files get their age from
// fs.utimes; the logger writes real files through pino-roll.
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type AgentConfig, formatIssue, loadConfig } from '../../../src/agent/config/index.ts';
import { createLogger } from '../../../src/agent/observability/logger.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { writeConfig } from '../config/config-fixture.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

async function configFrom(yaml: string): Promise<AgentConfig> {
  const loaded = await loadConfig(writeConfig(yaml), { fetchSecrets: false });
  if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
  return loaded.config;
}

const errors: Error[] = [];
const deps = {
  stdout: new Writable({ write: (_chunk, _enc, done) => done() }),
  context: { env: {}, readNamespaceFile: () => undefined },
  onInternalError: (error: Error) => void errors.push(error),
  now: Date.now,
};

/** A file in `dir` holding `text`, last modified `days` ago. */
function fileAged(dir: string, name: string, days: number, text = 'old line\n'): void {
  const path = join(dir, name);
  writeFileSync(path, text);
  const when = new Date(Date.now() - days * DAY_MS);
  utimesSync(path, when, when);
}

const settings = (dir: string, maxAgeDays: number) =>
  `logging:\n  file: ${dir}/agent.log\n  format: json\n  maxSizeMb: 1\n  maxBackups: 10\n  maxAgeDays: ${maxAgeDays}\n`;

describe('logging.maxAgeDays', () => {
  it('a rotation removes rotated files older than maxAgeDays and keeps younger ones', async () => {
    const dir = tempDir();
    const { logger, close } = await createLogger(await configFrom(settings(dir, 5)), deps);
    logger.info('first line');
    await sleep(50);
    // Backups as an earlier run would have left them, numbered below the file being written.
    fileAged(dir, 'agent.0.log', 6);
    fileAged(dir, 'agent.00.log', 4);
    const filler = 'x'.repeat(1000);
    for (let i = 0; i < 1300; i++) {
      logger.info({ i, filler }, 'filler line');
      if (i % 200 === 0) await sleep(5);
    }
    await sleep(200);
    await close();
    expect(errors).toEqual([]);
    const files = readdirSync(dir).sort();
    // It rotated: agent.1.log is the closed file, agent.2.log the one written last.
    expect(files).toContain('agent.2.log');
    expect(files).not.toContain('agent.0.log');
    expect(files).toContain('agent.00.log');
    expect(files).toContain('agent.1.log');
  });

  it('a start removes rotated files older than maxAgeDays, without waiting for a rotation', async () => {
    const dir = tempDir();
    fileAged(dir, 'agent.1.log', 12);
    // Compressed backups (compress: true in an earlier run) age the same way.
    fileAged(dir, 'agent.2.log.gz', 11);
    fileAged(dir, 'agent.3.log', 2);
    // pino-roll goes on writing the highest-numbered file: the active one is never removed, however old.
    fileAged(dir, 'agent.4.log', 30);
    // Not a rotated log file of this logger.
    fileAged(dir, 'other.1.log', 30);
    const { logger, close } = await createLogger(await configFrom(settings(dir, 10)), deps);
    logger.info('after the restart');
    await sleep(100);
    await close();
    expect(errors).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(['agent.3.log', 'agent.4.log', 'other.1.log']);
    expect(readFileSync(join(dir, 'agent.4.log'), 'utf8')).toContain('after the restart');
  });

  it('maxAgeDays: 0 keeps rotated files of any age', async () => {
    const dir = tempDir();
    fileAged(dir, 'agent.1.log', 400);
    fileAged(dir, 'agent.2.log', 1);
    const { logger, close } = await createLogger(await configFrom(settings(dir, 0)), deps);
    logger.info('after the restart');
    await sleep(100);
    await close();
    expect(errors).toEqual([]);
    expect(existsSync(join(dir, 'agent.1.log'))).toBe(true);
  });
});
