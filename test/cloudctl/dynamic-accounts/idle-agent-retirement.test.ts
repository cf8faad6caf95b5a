// `agentRetirement.notSeenForSeconds`: an agent with no session for that long is retired as DELETE
// /agents/{id} retires it (its static accounts leave every list and cache, their names become free),
// while a connected agent, however long connected, is never retired. A real control plane with test
// agents on real gRPC sessions; the period is two seconds, so the sweep looks every second.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamicFixture } from './fixture.ts';

let fx: DynamicFixture;

beforeAll(async () => {
  fx = await DynamicFixture.start({ agentRetirement: { notSeenForSeconds: 2 } });
});

afterAll(async () => {
  await fx?.close();
});

async function agentIds(): Promise<string[]> {
  return (await fx.cp.plane.store.agents.agents()).map((a) => a.id);
}

describe('idle agent retirement', () => {
  it('retires an agent gone for longer than notSeenForSeconds, and frees its static account names', async () => {
    const gone = await fx.connect('agent-c', { zone: 'zone-c', statics: ['idle-c'] });
    const staying = await fx.connect('agent-a', { zone: 'zone-a', statics: ['busy-a'] });
    gone.close();
    // cloudctl notes the end of the session after the close here: it was last seen no earlier.
    const closedAt = Date.now();
    for (;;) {
      if (!(await agentIds()).includes('agent-c')) break;
      if (Date.now() - closedAt > 30_000) throw new Error('agent-c not retired within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Not before its two seconds were up.
    expect(Date.now() - closedAt).toBeGreaterThanOrEqual(2_000);
    expect((await fx.root.get('/vendor/accounts/idle-c')).status).toBe(404);
    expect(
      (await fx.root.post('/credentials', { name: 'idle-c', type: 'orchestrator', orchConfigFile: '/k' }))
        .status,
    ).toBe(200);
    // The connected agent stays, though it connected before the other left.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await agentIds()).toContain('agent-a');
    expect((await fx.root.get('/vendor/accounts/busy-a')).body.state).not.toBe('ORPHANED');
    staying.close();
  }, 60_000);
});
