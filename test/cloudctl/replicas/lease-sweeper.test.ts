// The lease sweeper's alarm: "lost the lease of a running task" pages someone, so it must name only
// work that still runs here after the renewal, never a task that finished (and released its own
// lease) while the renewal was under way.
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { LeaseSweeper } from '../../../src/cloudctl/replicas/index.ts';

function recordingLogger() {
  const lines: Array<{ level: number; msg: string; taskId?: string }> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, errors: () => lines.filter((l) => l.level >= 50) };
}

/** Sweeps once: starts the sweeper, waits for its first beat to end, stops it. */
async function sweepOnce(sweeper: LeaseSweeper, swept: Promise<void>): Promise<void> {
  sweeper.start();
  await swept;
  await sweeper.stop();
}

describe('LeaseSweeper', () => {
  it('says nothing of a task that finished while its lease was being renewed', async () => {
    const running = new Set(['task-1']);
    const { logger, errors } = recordingLogger();
    const { promise: swept, resolve } = Promise.withResolvers<void>();
    const sweeper = new LeaseSweeper({
      // The task finishes during the renewal: it leaves the running set and releases its lease, so
      // the renewal does not find it.
      leases: {
        claim: async () => true,
        renew: async () => {
          running.delete('task-1');
          return [];
        },
        release: async () => undefined,
      },
      everyMs: 5,
      running: () => [...running],
      takeOver: async () => resolve(),
      logger,
      what: 'task',
    });
    await sweepOnce(sweeper, swept);
    expect(errors()).toEqual([]);
  });

  it('raises the alarm for a task still running here whose lease another owner took', async () => {
    const { logger, errors } = recordingLogger();
    const { promise: swept, resolve } = Promise.withResolvers<void>();
    const sweeper = new LeaseSweeper({
      leases: { claim: async () => true, renew: async () => [], release: async () => undefined },
      everyMs: 5,
      running: () => ['task-2'],
      takeOver: async () => resolve(),
      logger,
      what: 'task',
    });
    await sweepOnce(sweeper, swept);
    await sleep(0);
    expect(errors()).toMatchObject([{ msg: 'lost the lease of a running task', taskId: 'task-2' }]);
  });
});
