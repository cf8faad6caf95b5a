// An operation executor wired to a real cluster for tests: the account reaches the cluster through a
// kubeconfig file (admin, or a restricted service-account token).

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AccountCluster, defaultNamespace } from '../../../src/agent/accounts/index.ts';
import { type AgentConfig, formatIssue, loadConfig } from '../../../src/agent/config/index.ts';
import { HANDLERS, OperationExecutor, OperationJournal } from '../../../src/agent/operations/index.ts';
import {
  ClusterResources,
  KubeHttp,
  type KubeHttpDeps,
  kubeRetryPolicy,
  resolveKubeConfig,
} from '../../../src/kube/index.ts';
import { envEngine, secretValue } from '../../../src/secrets/index.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { writeConfig } from '../config/config-fixture.ts';

export async function accountCluster(
  kubeconfigPath: string,
  orchestratorExtra = '',
  onResponse?: KubeHttpDeps['onResponse'],
): Promise<AccountCluster> {
  // Fast retries unless the test sets its own.
  const defaultRetries = /^ {2}retries:/m.test(orchestratorExtra) ? '' : '  retries:\n    backOffMs: 10\n';
  const loaded = await loadConfig(
    writeConfig(
      `orchestrator:\n${orchestratorExtra}${defaultRetries}  accounts:\n    - name: test\n      orchConfigFile: ${kubeconfigPath}\n`,
    ),
    { fetchSecrets: false },
  );
  if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
  const config: AgentConfig = loaded.config;
  const account = config.orchestrator.accounts[0]!;
  const resolved = resolveKubeConfig(account, { env: {}, noProxy: false });
  const http = new KubeHttp(resolved.kubeConfig, resolved.server, {
    retry: kubeRetryPolicy(config.orchestrator.retries),
    ...(onResponse === undefined ? {} : { onResponse }),
  });
  const contextNamespace = resolved.kubeConfig.getContextObject(
    resolved.kubeConfig.getCurrentContext(),
  )?.namespace;
  return {
    config,
    account,
    http,
    resources: new ClusterResources(http),
    patchSchemas: new Map(),
    defaultNamespace: defaultNamespace(account, contextNamespace),
  };
}

/** A kubeconfig for `server` that authenticates with `token` (for RBAC tests). */
export function tokenKubeconfig(server: string, caFile: string, token: string): string {
  const file = join(tempDir(), 'kubeconfig');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server, 'certificate-authority': caFile } }],
      users: [{ name: 'u', user: { token } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  return file;
}

/** The environment the fixture's agent resolves `encrypted:env!n:…` references in. */
export const AGENT_SECRET_ENV: NodeJS.ProcessEnv = { WEBHOOK_AUTH: 'Bearer agent-side-secret-7734' };

export function executorFor(clusters: Record<string, AccountCluster>, defaultDeadlineMs = 60_000) {
  const journal = new OperationJournal({ capacity: 100, now: Date.now });
  const executor = new OperationExecutor({
    handlers: HANDLERS,
    clusterFor: (name) => clusters[name],
    journal,
    defaultDeadlineMs,
    rememberResults: 100,
    now: () => new Date(),
    // The agent's own engines, as main.ts gives them: an env variable the tests set stands for a secret.
    secret: (reference) => secretValue(reference, [envEngine(AGENT_SECRET_ENV, '')], 'the agent'),
  });
  return { executor, journal };
}
