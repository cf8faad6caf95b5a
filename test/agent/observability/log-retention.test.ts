import { readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { retireLogFile } from '../../../src/agent/observability/log-retention.ts';
import { tempDir } from '../../support/temp-dir.ts';

describe('log retention', () => {
  it('retiring a file an earlier prune already removed compresses nothing and leaves no empty .gz', async () => {
    // Three rotations came before their retirements ran: the first retirement's prune kept the
    // two newest rotated files, so the oldest pending one (agent.2.log) was gone at its turn.
    const dir = tempDir();
    writeFileSync(join(dir, 'agent.3.log'), 'three\n');
    writeFileSync(join(dir, 'agent.4.log'), 'four\n');
    writeFileSync(join(dir, 'agent.5.log'), 'active\n');
    const settings = { maxBackups: 2, maxAgeDays: 0, compress: true };
    const active = () => join(dir, 'agent.5.log');
    await retireLogFile(join(dir, 'agent.log'), join(dir, 'agent.2.log'), active, settings, Date.now());
    expect(readdirSync(dir).sort()).toEqual(['agent.3.log', 'agent.4.log', 'agent.5.log']);
    await retireLogFile(join(dir, 'agent.log'), join(dir, 'agent.3.log'), active, settings, Date.now());
    expect(readdirSync(dir).sort()).toEqual(['agent.3.log.gz', 'agent.4.log', 'agent.5.log']);
  });

  it('keeps the newest maxBackups rotated files when a queued retirement compresses an older one', async () => {
    // A burst rotated agent.2, .3 and .4 before the retirement of agent.2 ran; agent.1 was retired
    // before the burst. Each file was last written before the next was opened, a minute apart here.
    // Gzipping agent.2 writes agent.2.log.gz now, newer on disk than agent.3 and agent.4.
    const dir = tempDir();
    const writtenMinutesAgo = (name: string, text: string, minutes: number) => {
      writeFileSync(join(dir, name), text);
      const when = new Date(Date.now() - minutes * 60_000);
      utimesSync(join(dir, name), when, when);
    };
    writtenMinutesAgo('agent.1.log.gz', 'one\n', 4);
    writtenMinutesAgo('agent.2.log', 'two\n', 3);
    writtenMinutesAgo('agent.3.log', 'three\n', 2);
    writtenMinutesAgo('agent.4.log', 'four\n', 1);
    writeFileSync(join(dir, 'agent.5.log'), 'active\n');
    const settings = { maxBackups: 2, maxAgeDays: 0, compress: true };
    const active = () => join(dir, 'agent.5.log');
    const retire = (closed: string) =>
      retireLogFile(join(dir, 'agent.log'), join(dir, closed), active, settings, Date.now());

    await retire('agent.2.log');
    expect(readdirSync(dir).sort()).toEqual(['agent.3.log', 'agent.4.log', 'agent.5.log']);
    await retire('agent.3.log');
    await retire('agent.4.log');
    expect(readdirSync(dir).sort()).toEqual(['agent.3.log.gz', 'agent.4.log.gz', 'agent.5.log']);
    const kept = ['agent.3.log.gz', 'agent.4.log.gz'].map((name) =>
      gunzipSync(readFileSync(join(dir, name))).toString('utf8'),
    );
    expect(kept).toEqual(['three\n', 'four\n']);
  });

  it('prunes around the file being written when the prune runs, not when the retirement was queued', async () => {
    // agent.1.log closed when agent.2.log was opened; while its retirement ran, logging went on
    // through agent.3 and agent.4 into agent.5. agent.2.log is a backup by then, agent.5.log is not.
    const dir = tempDir();
    for (const n of [1, 2, 3, 4, 5]) writeFileSync(join(dir, `agent.${n}.log`), `${n}\n`);
    let writing = join(dir, 'agent.2.log');
    const settings = { maxBackups: 2, maxAgeDays: 0, compress: false };
    const retirement = retireLogFile(
      join(dir, 'agent.log'),
      join(dir, 'agent.1.log'),
      () => writing,
      settings,
      Date.now(),
    );
    writing = join(dir, 'agent.5.log');
    await retirement;
    expect(readdirSync(dir).sort()).toEqual(['agent.3.log', 'agent.4.log', 'agent.5.log']);
  });
});
