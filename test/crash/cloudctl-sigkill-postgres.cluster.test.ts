// Nothing lost when cloudctl on PostgreSQL is SIGKILLed in the middle of the batches an agent
// streams: the same scenario as on PGlite, with `cloudctl serve` on a real PostgreSQL server. Here the
// test reads cloudctl's table while cloudctl runs, so the convergence time it reports is the time
// until the stored resourceVersions equal the cluster's exactly.

import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CloudctlDatabase, openCloudctlDatabase } from '../../src/cloudctl/index.ts';
import { ConfigMapChurn } from '../support/config-map-churn.ts';
import { awaitConvergence, clusterSource, databaseSource } from '../support/convergence.ts';
import { type PostgresServer, startPostgres } from '../support/postgres-server.ts';
import { burstKilledHalfway, TARGET_MS, useCrashSystem } from './crash-system.ts';

const NS = 'crash-cloudctl-pg';
const ACCOUNT = 'crash-cloudctl-pg';
const APPLICATION = 'crashcloudctlpg';
const TOKENS = { agent: 'agent-token-crash-b5d0', ops: 'ops-token-crash-6f21' };

let postgres: PostgresServer;
let db: Kysely<CloudctlDatabase>;

beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(async () => {
  await db?.destroy();
  await postgres?.stop();
});

const crash = useCrashSystem(NS, TOKENS, {
  databaseUrl: () => postgres.url,
  // Opened after cloudctl has migrated the schema; PostgreSQL serves both processes at once.
  beforeAgent: async () => {
    db = await openCloudctlDatabase({ kind: 'postgres', url: postgres.url });
  },
});

describe('cloudctl on PostgreSQL SIGKILLed in the middle of a batch', () => {
  it('loses nothing: served again, its table holds exactly what the cluster holds', async () => {
    const { system, cluster } = crash;
    const churn = new ConfigMapChurn(cluster, NS, APPLICATION);
    await burstKilledHalfway(churn, () => system.killCloudctl());
    // While cloudctl is down: the agent sees these changes but has nowhere to send them.
    await churn.mixedChanges('down', 30);

    const restartedAt = Date.now();
    await system.serveCloudctl();
    await awaitConvergence(
      {
        cluster: clusterSource(cluster, [{ kind: 'ConfigMap', path: `/api/v1/namespaces/${NS}/configmaps` }]),
        stored: databaseSource(db, ACCOUNT, [NS]),
      },
      { limitMs: 3 * TARGET_MS },
    );
    const convergedMs = Date.now() - restartedAt;
    console.info(
      `cloudctl SIGKILL (PostgreSQL): ${churn.live.length} objects converged ${convergedMs} ms after cloudctl's restart (target ${TARGET_MS} ms)`,
    );
    expect(convergedMs).toBeLessThan(3 * TARGET_MS);
  }, 120_000);
});
