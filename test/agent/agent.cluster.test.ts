import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { freePort } from '../cluster/free-port.ts';
import { sharedCluster } from '../cluster/index.ts';
import { startInProcessAgent } from './in-process-agent.ts';
import { unreachableKubeconfig } from './watch/watch-fixture.ts';

describe('the agent daemon on a real cluster', () => {
  it('marks reachable accounts ACTIVE and unreachable ones FAILED with the cause, and runs operations', async () => {
    const deadKubeconfig = await unreachableKubeconfig();
    const deadServer = JSON.parse(readFileSync(deadKubeconfig, 'utf8')).clusters[0].cluster.server;
    const healthPort = await freePort();
    const agent = await startInProcessAgent(
      `logging:\n  format: json\n  level: error\nserver:\n  host: 127.0.0.1\n  port: ${healthPort}\norchestrator:\n  accounts:\n    - name: live\n      orchConfigFile: ${sharedCluster().kubeconfigPath}\n    - name: dead\n      orchConfigFile: ${deadKubeconfig}\n`,
    );
    try {
      const accounts = await (await fetch(`http://127.0.0.1:${healthPort}/accounts`)).json();
      expect(accounts).toHaveProperty('items', [
        expect.objectContaining({
          name: 'dead',
          state: 'FAILED',
          lastAssignmentMsg: `cannot reach ${deadServer}: ECONNREFUSED`,
        }),
        expect.objectContaining({
          name: 'live',
          state: 'ACTIVE',
          lastAssignmentMsg: expect.stringMatching(/^connected to https:\/\/127\.0\.0\.1:\d+ \(v1\.36\.3\)/),
        }),
      ]);
      const { executor } = agent.runtime;
      const result = await executor.execute({
        id: 'agent-test-1',
        type: 'get',
        account: 'live',
        payload: { apiVersion: 'v1', kind: 'Namespace', name: 'default' },
      });
      expect(result).toMatchObject({ ok: true, result: { object: { metadata: { name: 'default' } } } });
      const failed = await executor.execute({
        id: 'agent-test-2',
        type: 'get',
        account: 'dead',
        payload: { apiVersion: 'v1', kind: 'Namespace', name: 'default' },
      });
      expect(failed).toMatchObject({
        ok: false,
        error: {
          code: 'UNREACHABLE',
          message: `account 'dead' is not connected: cannot reach ${deadServer}: ECONNREFUSED`,
        },
      });
    } finally {
      await agent.stop();
    }
  });
});
