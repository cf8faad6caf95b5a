import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatIssue, loadConfig } from '../../src/agent/config/index.ts';
import { type AgentRuntime, runAgent } from '../../src/agent/main.ts';
import type { CliIo } from '../../src/lib/cli-io.ts';
import { freePort } from '../cluster/free-port.ts';
import { writeConfig } from './config/config-fixture.ts';

describe('graceful shutdown', () => {
  it('stops taking operations, lets quick ones finish, cuts off the rest at the deadline, then stops', async () => {
    const loaded = await loadConfig(
      writeConfig(`logging:\n  format: json\nserver:\n  host: 127.0.0.1\n  port: ${await freePort()}\n`),
      { fetchSecrets: true },
    );
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    const lines: string[] = [];
    const stdout = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const { promise: stop, resolve: signal } = Promise.withResolvers<string>();
    const io: CliIo = { out: () => undefined, err: () => undefined, env: {}, stdout, stopSignal: () => stop };

    let runtime: AgentRuntime | undefined;
    let longAborted = false;
    const done = runAgent(loaded, io, stop, {
      shutdownDeadlineMs: 300,
      onStarted: (r) => {
        runtime = r;
        r.operations.begin('op-long', 'runJob', 'prod')?.addEventListener('abort', () => {
          longAborted = true;
        });
        r.operations.begin('op-quick', 'scale', 'prod');
        setTimeout(() => r.operations.end('op-quick', 'succeeded'), 100);
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    signal('SIGTERM');
    await done;

    // The lifecycle lines; the connection component logs its own attempts alongside.
    const messages = lines.map((l) => JSON.parse(l)).filter((m) => m.component === undefined);
    expect(messages.map((m) => m.msg)).toEqual([
      'orch-agent started',
      'orch-agent stopping: no new operations',
      'operation cut off by shutdown, reported as failed',
      'orch-agent stopped',
    ]);
    expect(messages[1]).toMatchObject({ signal: 'SIGTERM', inFlight: 2, deadlineMs: 300 });
    expect(messages[2]).toMatchObject({ operation: 'op-long', type: 'runJob', account: 'prod' });
    expect(longAborted).toBe(true);
    expect(runtime?.operations.recent().map((r) => [r.id, r.outcome])).toEqual([
      ['op-long', 'cut-off'],
      ['op-quick', 'succeeded'],
    ]);
    expect(runtime?.operations.begin('op-late', 'deploy', 'prod')).toBeUndefined();
  });
});
