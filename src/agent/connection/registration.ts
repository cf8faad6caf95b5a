// What the agent tells the control plane in hello (who it is, the accounts it holds with their source
// and caching, whether it takes dynamic accounts), and where its identity comes from by default.
import { hostname } from 'node:os';
import type { Hello } from '../../proto/index.ts';
import type { Environment } from './proxy-env.ts';
import { defaultZoneId } from './zone-id.ts';

export interface RegisteredAccount {
  name: string;
  /** READ and WRITE role lists, as the account's config declares them. */
  permissions: { read: string[]; write: string[] };
  /** Host (and port) of the account's Kubernetes API server. */
  apiServerHost: string;
  /** Such as "v1.33.1"; empty when the cluster has not been reached yet. */
  kubernetesVersion: string;
  /** The agent's config file, or an assignment by the control plane. */
  source: 'static-agent-config' | 'cloudctl';
  /** Whether the agent streams the account's resources (its cache directive); false: operations only. */
  caching: boolean;
}

/** The agent's dynamic-account settings as hello carries them (proto DynamicAccounts). */
export interface HelloDynamicAccounts {
  enabled: boolean;
  interceptorEnabled: boolean;
  scanBatchSize: number;
  scanFrequencySeconds: number;
  namePatterns: string[];
  credentialScanNamePatterns: string[];
}

export interface AgentIdentity {
  agentId: string;
  zoneId: string;
  replicaCount: number;
}

export interface Registration extends AgentIdentity {
  accounts: RegisteredAccount[];
  dynamicAccounts: HelloDynamicAccounts;
}

/**
 * Identity defaults from the environment the Helm chart sets: agent id from `ORCH_AGENT_ID`, else
 * `POD_NAME`, else the host name; zone from `ORCH_AGENT_ZONE_ID`, else the spec's default
 * `<deployment name>_<namespace>` computed from the pod's own name (`POD_NAME`, else the host name,
 * which Kubernetes sets to the pod's name) and namespace (zone-id.ts), else empty (not in a Deployment's pod); replicas from `ORCH_AGENT_REPLICAS` (1 when unset or not a
 * positive integer). `podNamespace` is the service account's namespace, for a pod without
 * POD_NAMESPACE.
 */
export function identityFromEnv(
  env: Environment,
  host: string = hostname(),
  podNamespace: () => string | undefined = () => undefined,
): AgentIdentity {
  const nonEmpty = (value: string | undefined) =>
    value === undefined || value.trim() === '' ? undefined : value.trim();
  const replicas = Number(nonEmpty(env.ORCH_AGENT_REPLICAS) ?? '1');
  const namespace = nonEmpty(env.POD_NAMESPACE) ?? podNamespace();
  const zoneId =
    nonEmpty(env.ORCH_AGENT_ZONE_ID) ??
    defaultZoneId({
      // In a pod the host name is the pod's name, so a pod without POD_NAME (a chart other than
      // ours, a hand-written manifest) still gets its zone. Only where the pod's namespace is known:
      // a laptop's host name is no pod's name.
      name: nonEmpty(env.POD_NAME) ?? (namespace === undefined ? undefined : host),
      namespace,
      templateHash: env.POD_TEMPLATE_HASH,
    }) ??
    '';
  return {
    agentId: nonEmpty(env.ORCH_AGENT_ID) ?? nonEmpty(env.POD_NAME) ?? host,
    zoneId,
    replicaCount: Number.isInteger(replicas) && replicas > 0 ? replicas : 1,
  };
}

/**
 * How long the agent keeps trying to deliver one result (`cloudctl.responseRetries`): the control
 * plane waits at least this long past an operation's deadline (the spec warns that its wait must not
 * expire before these retries end). Attempts cut short by a lost connection are not counted, so in
 * wall-clock time the retries can last longer; this is the floor.
 */
export function resultRetryWindowMs(retries: {
  enabled: boolean;
  maxRetries: number;
  backOffMs: number;
}): number {
  return retries.enabled ? retries.maxRetries * retries.backOffMs : 0;
}

export function helloMessage(registration: Registration, version: string, retryWindowMs = 0): Hello {
  return {
    agentId: registration.agentId,
    version,
    zoneId: registration.zoneId,
    replicaCount: registration.replicaCount,
    accounts: registration.accounts.map((a) => ({
      name: a.name,
      permissions: { read: a.permissions.read, write: a.permissions.write },
      apiServerHost: a.apiServerHost,
      kubernetesVersion: a.kubernetesVersion,
      source: a.source === 'cloudctl' ? 'CLOUDCTL' : 'STATIC_AGENT_CONFIG',
      caching: a.caching,
    })),
    dynamicAccounts: {
      enabled: registration.dynamicAccounts.enabled,
      interceptorEnabled: registration.dynamicAccounts.interceptorEnabled,
      scanBatchSize: registration.dynamicAccounts.scanBatchSize,
      scanFrequencySeconds: registration.dynamicAccounts.scanFrequencySeconds,
      namePatterns: registration.dynamicAccounts.namePatterns,
      credentialScanNamePatterns: registration.dynamicAccounts.credentialScanNamePatterns,
    },
    resultRetryWindowMs: String(retryWindowMs),
  };
}
