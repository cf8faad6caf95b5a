import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/agent/cli/cli-io.ts';
import { formatIssue, loadConfig } from '../../src/agent/config/index.ts';
import { type AgentRuntime, runAgent } from '../../src/agent/main.ts';
import { freePort } from '../cluster/free-port.ts';
import { sharedCluster } from '../cluster/index.ts';
import { tempDir, writeConfig } from './config/config-fixture.ts';

describe('the agent daemon on a real cluster', () => {
  it('marks reachable accounts ACTIVE and unreachable ones FAILED with the cause, and runs operations', async () => {
    const shared = sharedCluster();
    const deadPort = await freePort();
    const deadKubeconfig = join(tempDir(), 'dead');
    writeFileSync(
      deadKubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'c',
            cluster: { server: `https://127.0.0.1:${deadPort}`, 'certificate-authority': shared.caFile },
          },
        ],
        users: [{ name: 'u', user: { token: 'x' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const healthPort = await freePort();
    const loaded = await loadConfig(
      writeConfig(
        `logging:\n  format: json\n  level: error\nserver:\n  host: 127.0.0.1\n  port: ${healthPort}\norchestrator:\n  accounts:\n    - name: live\n      orchConfigFile: ${shared.kubeconfigPath}\n    - name: dead\n      orchConfigFile: ${deadKubeconfig}\n`,
      ),
      { fetchSecrets: true },
    );
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    const { promise: stop, resolve: signal } = Promise.withResolvers<string>();
    const { promise: started, resolve: onStarted } = Promise.withResolvers<AgentRuntime>();
    const io: CliIo = {
      out: () => undefined,
      err: () => undefined,
      env: {},
      stdout: new Writable({ write: (_c, _e, done) => done() }),
      stopSignal: () => stop,
    };
    const done = runAgent(loaded, io, stop, { onStarted });
    try {
      const runtime = await started;
      const accounts = await (await fetch(`http://127.0.0.1:${healthPort}/accounts`)).json();
      expect(accounts).toHaveProperty('items', [
        expect.objectContaining({
          name: 'dead',
          state: 'FAILED',
          lastAssignmentMsg: `cannot reach https://127.0.0.1:${deadPort}: ECONNREFUSED`,
        }),
        expect.objectContaining({
          name: 'live',
          state: 'ACTIVE',
          lastAssignmentMsg: expect.stringMatching(/^connected to https:\/\/127\.0\.0\.1:\d+ \(v1\.36\.3\)/),
        }),
      ]);
      const result = await runtime.executor.execute({
        id: 'agent-test-1',
        type: 'get',
        account: 'live',
        payload: { apiVersion: 'v1', kind: 'Namespace', name: 'default' },
      });
      expect(result).toMatchObject({ ok: true, result: { object: { metadata: { name: 'default' } } } });
      const failed = await runtime.executor.execute({
        id: 'agent-test-2',
        type: 'get',
        account: 'dead',
        payload: { apiVersion: 'v1', kind: 'Namespace', name: 'default' },
      });
      expect(failed).toMatchObject({
        ok: false,
        error: {
          code: 'UNREACHABLE',
          message: `account 'dead' is not connected: cannot reach https://127.0.0.1:${deadPort}: ECONNREFUSED`,
        },
      });
    } finally {
      signal('SIGTERM');
      await done;
    }
  });
});
