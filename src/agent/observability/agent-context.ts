// Detects `agentCluster` and `agentNamespace` for the `logging.fields` of variant B when the config
// leaves them empty. Kubernetes has no API for a cluster's name, so the cluster comes from
// AGENT_CLUSTER (the Helm chart sets it) or, in a pod, the API server address.
import { readFileSync } from 'node:fs';

export const SERVICE_ACCOUNT_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

export interface AgentContextSources {
  env: NodeJS.ProcessEnv;
  readNamespaceFile(): string | undefined;
}

export const defaultContextSources = (env: NodeJS.ProcessEnv): AgentContextSources => ({
  env,
  readNamespaceFile: () => {
    try {
      return readFileSync(SERVICE_ACCOUNT_NAMESPACE_FILE, 'utf8').trim() || undefined;
    } catch {
      return undefined;
    }
  },
});

export function detectAgentContext(sources: AgentContextSources): {
  agentCluster?: string;
  agentNamespace?: string;
} {
  const { env } = sources;
  const agentNamespace = env.POD_NAMESPACE || sources.readNamespaceFile();
  const agentCluster =
    env.AGENT_CLUSTER ||
    (env.KUBERNETES_SERVICE_HOST
      ? `${env.KUBERNETES_SERVICE_HOST}:${env.KUBERNETES_SERVICE_PORT ?? '443'}`
      : undefined);
  return {
    ...(agentCluster ? { agentCluster } : {}),
    ...(agentNamespace ? { agentNamespace } : {}),
  };
}

/** `logging.fields` with empty agentCluster/agentNamespace filled in and other empty values dropped. */
export function logFields(
  fields: Record<string, string | null>,
  sources: AgentContextSources,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) if (value) out[key] = value;
  const detected = detectAgentContext(sources);
  for (const key of ['agentCluster', 'agentNamespace'] as const) {
    const value = detected[key];
    if (out[key] === undefined && value !== undefined) out[key] = value;
  }
  return out;
}
