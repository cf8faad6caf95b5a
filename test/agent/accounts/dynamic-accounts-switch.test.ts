// Issue 15: dynamicAccounts.enabled (B, default false) and dynamicAccountsEnabled (C, default true)
// decide whether the agent takes assignments at all; a refusal names the setting. Variant A has
// neither and takes them. Hello tells the control plane the settings it acts on: in B the
// subscription (patterns, scan frequency, batch size, interceptor), in C only the switch.
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_CONFIG_SCHEMAS } from '../../../src/agent/config/index.ts';
import { type InProcessAgent, msUntil, startInProcessAgent } from '../in-process-agent.ts';
import { unreachableKubeconfig } from '../watch/watch-fixture.ts';
import { ScriptedControlPlane } from './scripted-control-plane.ts';

let cp: ScriptedControlPlane | undefined;
let agent: InProcessAgent | undefined;

afterEach(async () => {
  await agent?.stop();
  await cp?.close();
  agent = undefined;
  cp = undefined;
});

async function start(settings: Record<string, unknown>): Promise<ScriptedControlPlane> {
  cp = await ScriptedControlPlane.start();
  agent = await startInProcessAgent({
    logging: { format: 'json', level: 'debug' },
    cloudctl: { grpc: cp.address, insecure: true },
    ...settings,
  });
  const plane = cp;
  await msUntil(() => plane.sessions > 0, 20_000, 'a registered session');
  return plane;
}

describe('dynamic accounts switched off', () => {
  it('B (dynamicAccounts.enabled defaults to false): every assignment is REFUSED naming the setting', async () => {
    const plane = await start({ variant: 'B' });
    expect(plane.hellos[0]?.dynamicAccounts?.enabled).toBe(false);
    plane.assign([
      { name: 'one', definition: { orchConfigFile: '/nowhere/one' } },
      { name: 'two', definition: { orchConfigFile: '/nowhere/two' } },
    ]);
    for (const name of ['one', 'two']) {
      const status = await plane.status(name, () => true);
      expect(status.state).toBe('REFUSED');
      expect(status.message).toBe(
        `dynamic accounts are disabled on this agent (dynamicAccounts.enabled: false); the assignment of '${name}' was not taken`,
      );
    }
    expect(agent?.runtime.accounts.statuses()).toEqual([]);
  });

  it('C with dynamicAccountsEnabled: false: REFUSED naming that setting; hello says enabled false', async () => {
    const plane = await start({ variant: 'C', dynamicAccountsEnabled: false });
    expect(plane.hellos[0]?.dynamicAccounts).toMatchObject({ enabled: false, namePatterns: [] });
    plane.assign([{ name: 'c-one', definition: { orchConfigFile: '/nowhere/c' } }]);
    const status = await plane.status('c-one', () => true);
    expect(status).toMatchObject({
      state: 'REFUSED',
      message:
        "dynamic accounts are disabled on this agent (dynamicAccountsEnabled: false); the assignment of 'c-one' was not taken",
    });
    expect(agent?.runtime.accounts.status('c-one')).toBeUndefined();
  });
});

describe('dynamic accounts switched on', () => {
  it('B sends its subscription in hello and takes an assignment (FAILED here: its cluster is unreachable, not REFUSED)', async () => {
    const plane = await start({
      variant: 'B',
      dynamicAccounts: {
        enabled: true,
        interceptor: { enabled: false },
        scanBatchSize: 7,
        scanFrequencySeconds: 30,
        namePatterns: ['^team-a-'],
        credentialScanNamePatterns: ['/kubeconfigs/team-a/'],
      },
    });
    expect(plane.hellos[0]?.dynamicAccounts).toEqual({
      enabled: true,
      interceptorEnabled: false,
      scanBatchSize: 7,
      scanFrequencySeconds: 30,
      namePatterns: ['^team-a-'],
      credentialScanNamePatterns: ['/kubeconfigs/team-a/'],
    });
    plane.assign([{ name: 'team-a-dev', definition: { orchConfigFile: await unreachableKubeconfig() } }]);
    const status = await plane.status('team-a-dev', (s) => s.state !== 'STATE_UNSPECIFIED');
    expect(status.state).toBe('FAILED');
    expect(status.message).toContain('ECONNREFUSED');
    expect(agent?.runtime.accounts.status('team-a-dev')?.source).toBe('cloudctl');
  });

  it('C by default (dynamicAccountsEnabled: true) takes assignments; hello carries the switch only', async () => {
    const plane = await start({ variant: 'C' });
    expect(plane.hellos[0]?.dynamicAccounts).toEqual({
      enabled: true,
      interceptorEnabled: false,
      scanBatchSize: 0,
      scanFrequencySeconds: 0,
      namePatterns: [],
      credentialScanNamePatterns: [],
    });
    plane.assign([{ name: 'c-two', definition: { orchConfigFile: await unreachableKubeconfig() } }]);
    expect((await plane.status('c-two', () => true)).state).toBe('FAILED');
  });

  it('A has no switch and takes assignments, as before the switch existed', async () => {
    const plane = await start({ variant: 'A' });
    expect(plane.hellos[0]?.dynamicAccounts?.enabled).toBe(true);
    plane.assign([{ name: 'a-one', definition: { orchConfigFile: await unreachableKubeconfig() } }]);
    expect((await plane.status('a-one', () => true)).state).toBe('FAILED');
  });
});

describe('the dynamic-account settings', () => {
  it('namePatterns and credentialScanNamePatterns must be regular expressions', () => {
    const parsed = AGENT_CONFIG_SCHEMAS.B.safeParse({
      dynamicAccounts: { namePatterns: ['^ok$', 'team-(a'] },
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['dynamicAccounts', 'namePatterns', 1]);
    expect(parsed.error?.issues[0]?.message).toMatch(/^expected a regular expression, found 'team-\(a' \(/);
  });
});
