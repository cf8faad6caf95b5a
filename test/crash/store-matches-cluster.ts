// The two checks every crash test ends with, for a TestSystem whose cloudctl runs on embedded PGlite:
// first, while it serves, poll its read API until it shows the churned ConfigMaps at their latest
// revision (the convergence time that is reported); then stop it and compare its database with the
// cluster exactly, resourceVersions and objects outside the application (kube-root-ca.crt) included.
import { openCloudctlDatabase } from '../../src/cloudctl/index.ts';
import type { ApiClient } from '../cluster/index.ts';
import { REVISION_LABEL } from '../support/config-map-churn.ts';
import { awaitConvergence, clusterSource, databaseSource, readApiSource } from '../support/convergence.ts';
import type { TestSystem } from '../support/processes.ts';

export interface CrashSubject {
  system: TestSystem;
  cluster: ApiClient;
  namespace: string;
  account: string;
  application: string;
  /** A user's token with READ on the account. */
  token: string;
}

const configMaps = (namespace: string) => [
  { kind: 'ConfigMap', path: `/api/v1/namespaces/${namespace}/configmaps` },
];

/** Resolves with the milliseconds from `since` until the read API agrees with the cluster. */
export async function msUntilReadApiMatches(
  s: CrashSubject,
  since: number,
  limitMs: number,
): Promise<number> {
  await awaitConvergence(
    {
      cluster: clusterSource(s.cluster, configMaps(s.namespace), {
        keep: (meta) => meta.labels?.[REVISION_LABEL] !== undefined,
        versionOf: (meta) => meta.labels?.[REVISION_LABEL] ?? '',
      }),
      stored: readApiSource({
        url: s.system.url,
        token: s.token,
        application: s.application,
        account: s.account,
        label: REVISION_LABEL,
      }),
    },
    { limitMs },
  );
  return Date.now() - since;
}

/**
 * Stops the system (PGlite admits one process at a time) and throws, naming every lost, ghost and
 * stale object, unless the database holds exactly the namespace's ConfigMaps at their resourceVersions.
 */
export async function expectDatabaseMatches(s: CrashSubject): Promise<void> {
  await s.system.stop();
  const db = await openCloudctlDatabase({ kind: 'pglite', dataDir: s.system.dataDir });
  try {
    await awaitConvergence(
      {
        cluster: clusterSource(s.cluster, configMaps(s.namespace)),
        stored: databaseSource(db, s.account, [s.namespace]),
      },
      { limitMs: 0 },
    );
  } finally {
    await db.destroy();
  }
}
