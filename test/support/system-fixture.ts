// The system most end-to-end files start once: `cloudctl serve` (on PGlite on disk, or the PostgreSQL
// URL given) and `orch-agent run` as processes, one account that watches its own namespace of the
// shared cluster. Started before the file's tests and stopped after them, with its namespace and
// folder removed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../cluster/index.ts';
import { type SystemPlan, TestSystem } from './processes.ts';

export interface SystemFixtureOptions {
  /** The namespace, account and agent id. */
  name: string;
  agentToken: string;
  users: SystemPlan['users'];
  /** The kinds the account caches. */
  kinds: readonly string[];
  read: readonly string[];
  write: readonly string[];
  /** cloudctl's PostgreSQL, known only once the file's own set-up ran. */
  databaseUrl?: () => string;
  /** Runs once cloudctl serves, before the agent starts (cloudctl has migrated the schema). */
  beforeAgent?: () => Promise<void>;
  /** More top-level sections of cloudctl's config, as YAML (e.g. `plans:`). */
  config?: string;
  /** The agent's redial cap (SystemPlan's `agentBackoffMaxMs`). */
  agentBackoffMaxMs?: number;
}

export interface SystemFixture {
  readonly system: TestSystem;
  readonly cluster: ApiClient;
}

export function useSystem(options: SystemFixtureOptions): SystemFixture {
  const { name } = options;
  let dir = '';
  let cluster: ApiClient | undefined;
  let system: TestSystem | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), `${name}-`));
    cluster = sharedClusterClient();
    system = await TestSystem.startCloudctl({
      dir,
      ...(options.databaseUrl === undefined ? {} : { databaseUrl: options.databaseUrl() }),
      ...(options.config === undefined ? {} : { config: options.config }),
      ...(options.agentBackoffMaxMs === undefined ? {} : { agentBackoffMaxMs: options.agentBackoffMaxMs }),
      agent: { id: name, token: options.agentToken },
      users: options.users,
      account: {
        name,
        kubeconfig: sharedCluster().kubeconfigPath,
        namespaces: [name],
        kinds: options.kinds,
        read: options.read,
        write: options.write,
      },
    });
    await options.beforeAgent?.();
    await cluster.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    });
    await system.startAgent();
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
    await cluster?.request('DELETE', `/api/v1/namespaces/${name}`);
    await cluster?.close();
    if (dir !== '') await rm(dir, { recursive: true, force: true });
  });
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the system's ${what} is not started`);
    return value;
  };
  return {
    get system() {
      return started(system, 'cloudctl');
    },
    get cluster() {
      return started(cluster, 'cluster client');
    },
  };
}
