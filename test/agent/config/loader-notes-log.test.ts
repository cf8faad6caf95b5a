import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatIssue, loadConfig } from '../../../src/agent/config/index.ts';
import { runAgent } from '../../../src/agent/main.ts';
import type { CliIo } from '../../../src/lib/cli-io.ts';
import { freePort } from '../../cluster/free-port.ts';
import { writeConfig } from './config-fixture.ts';

describe("the agent's log at start", () => {
  it('carries the loader’s notes: the inferred variant at INFO, an unknown key at WARN, with file and line', async () => {
    const file = writeConfig(
      `dynamicAccountsEnabled: false\nlogging:\n  format: json\nserver:\n  host: 127.0.0.1\n  port: ${await freePort()}\nprometheus:\n  enabled: true\n`,
    );
    const loaded = await loadConfig(file, { fetchSecrets: true });
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    const lines: Array<Record<string, unknown>> = [];
    const stdout = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const { promise: stop, resolve: signal } = Promise.withResolvers<string>();
    const io: CliIo = { out: () => undefined, err: () => undefined, env: {}, stdout, stopSignal: () => stop };
    await runAgent(loaded, io, stop, { onStarted: () => signal('SIGTERM') });

    expect(lines.find((l) => String(l.msg).startsWith("no 'variant:' in the file"))).toMatchObject({
      level: 30,
      file,
      line: 1,
      msg: expect.stringContaining('read as variant C'),
    });
    expect(lines.find((l) => l.key === 'prometheus')).toMatchObject({
      level: 40,
      line: 7,
      msg: expect.stringContaining("did you mean 'telemetry'?"),
    });
  });
});
