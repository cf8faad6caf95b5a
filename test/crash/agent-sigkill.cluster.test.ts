// Nothing lost when the agent is SIGKILLed while it streams a burst of changes: `cloudctl serve` on
// PGlite on disk and `orch-agent run` as real processes, the shared cluster. The agent dies in the
// middle of 300 ConfigMaps being created, updated and deleted; more creates, updates and deletes land
// while it is down; once it is back, cloudctl's store must equal the cluster exactly. The time that
// takes is reported against the 10 s target; the bound asserted is wider for a shared 2-core machine.
import { describe, expect, it } from 'vitest';
import { ConfigMapChurn } from '../support/config-map-churn.ts';
import { burstKilledHalfway, TARGET_MS, useCrashSystem } from './crash-system.ts';
import { expectDatabaseMatches, msUntilReadApiMatches } from './store-matches-cluster.ts';

const NS = 'crash-agent';
const ACCOUNT = 'crash-agent';
const APPLICATION = 'crashagent';
const TOKENS = { agent: 'agent-token-crash-4e1a', ops: 'ops-token-crash-90bd' };

const crash = useCrashSystem(NS, TOKENS);

describe('the agent SIGKILLed during a change burst', () => {
  it('loses nothing: after its restart cloudctl stores exactly what the cluster holds', async () => {
    const { system, cluster } = crash;
    const churn = new ConfigMapChurn(cluster, NS, APPLICATION);
    await burstKilledHalfway(churn, () => system.killAgent());
    // While the agent is down: new objects, updates and deletes it has to find out about on return.
    await churn.mixedChanges('down', 30);

    const restartedAt = Date.now();
    await system.startAgent();
    const subject = {
      system,
      cluster,
      namespace: NS,
      account: ACCOUNT,
      application: APPLICATION,
      token: TOKENS.ops,
    };
    const convergedMs = await msUntilReadApiMatches(subject, restartedAt, 3 * TARGET_MS);
    console.info(
      `agent SIGKILL: ${churn.live.length} objects converged ${convergedMs} ms after the agent's restart (target ${TARGET_MS} ms)`,
    );
    expect(convergedMs).toBeLessThan(3 * TARGET_MS);
    await expectDatabaseMatches(subject);
  }, 120_000);
});
