import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { retireLogFile } from '../../../src/agent/observability/log-retention.ts';
import { tempDir } from '../config/config-fixture.ts';

describe('log retention', () => {
  it('retiring a file an earlier prune already removed compresses nothing and leaves no empty .gz', async () => {
    // Three rotations came before their retirements ran: the first retirement's prune kept the
    // two newest rotated files, so the oldest pending one (agent.2.log) was gone at its turn.
    const dir = tempDir();
    writeFileSync(join(dir, 'agent.3.log'), 'three\n');
    writeFileSync(join(dir, 'agent.4.log'), 'four\n');
    writeFileSync(join(dir, 'agent.5.log'), 'active\n');
    const settings = { maxBackups: 2, maxAgeDays: 0, compress: true };
    await retireLogFile(
      join(dir, 'agent.log'),
      join(dir, 'agent.2.log'),
      join(dir, 'agent.5.log'),
      settings,
      Date.now(),
    );
    expect(readdirSync(dir).sort()).toEqual(['agent.3.log', 'agent.4.log', 'agent.5.log']);
    await retireLogFile(
      join(dir, 'agent.log'),
      join(dir, 'agent.3.log'),
      join(dir, 'agent.5.log'),
      settings,
      Date.now(),
    );
    expect(readdirSync(dir).sort()).toEqual(['agent.3.log.gz', 'agent.4.log', 'agent.5.log']);
  });
});
