// cloudctl and several agents as real processes for the dynamic accounts end-to-end test: each agent
// has its own id, zone, static accounts and dynamicAccounts settings (variant B), and can be killed
// and started again from the same config, as a crashed pod would be.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hashToken } from '../../../src/cloudctl/index.ts';
import { freePort } from '../../cluster/free-port.ts';
import { type RunningProcess, startCloudctl, startProcess, waitReady } from '../../support/processes.ts';

export interface StaticAccount {
  name: string;
  kubeconfig: string;
  namespaces: readonly string[];
}

export interface AgentSpec {
  id: string;
  zone: string;
  statics: readonly StaticAccount[];
  dynamicAccounts: {
    enabled: boolean;
    scanBatchSize?: number;
    scanFrequencySeconds?: number;
    namePatterns?: readonly string[];
    credentialScanNamePatterns?: readonly string[];
    interceptor?: boolean;
  };
  /** The default kubeconfig of the agent's own identity (where `k8s` secret references are read). */
  kubeconfig: string;
  /** More environment, such as the downward API variables a pod would have. */
  env?: Record<string, string>;
}

function tokenOf(agentId: string): string {
  return `token-of-${agentId}-e2e-90ad`;
}

function list(items: readonly string[]): string {
  return `[${items.map((item) => JSON.stringify(item)).join(', ')}]`;
}

export class AgentsSystem {
  readonly url: string;
  readonly #dir: string;
  readonly #grpcPort: number;
  readonly #cloudctl: RunningProcess;
  readonly #agents = new Map<string, { process: RunningProcess; metricsPort: number }>();

  private constructor(dir: string, ports: { http: number; grpc: number }, cloudctl: RunningProcess) {
    this.#dir = dir;
    this.#grpcPort = ports.grpc;
    this.#cloudctl = cloudctl;
    this.url = `http://127.0.0.1:${ports.http}`;
  }

  /** `cloudctl serve` knowing the agents and one admin user. */
  static async start(dir: string, agentIds: readonly string[], admin: { name: string; token: string }) {
    const ports = { http: await freePort(), grpc: await freePort() };
    const config = [
      `grpc:\n  host: 127.0.0.1\n  port: ${ports.grpc}`,
      `http:\n  host: 127.0.0.1\n  port: ${ports.http}`,
      `database:\n  dataDir: ${join(dir, 'cloudctl-data')}`,
      'agents:',
      ...agentIds.map((id) => `  - id: ${id}\n    tokenHash: ${hashToken(tokenOf(id))}`),
      'users:',
      `  - name: ${admin.name}\n    tokenHash: ${hashToken(admin.token)}\n    roles: [admins]`,
      'auth:\n  adminRoles: [admins]',
      '',
    ].join('\n');
    const cloudctl = await startCloudctl(dir, 'cloudctl.yaml', config, ports.http);
    return new AgentsSystem(dir, ports, cloudctl);
  }

  /** cloudctl's log lines (JSON) with this message. */
  cloudctlLog(msg: string): Array<Record<string, unknown>> {
    return this.#cloudctl
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === msg);
  }

  /** Writes the agent's config and runs it until ready (connected, its static accounts synced). */
  async startAgent(spec: AgentSpec): Promise<void> {
    const healthPort = await freePort();
    const metricsPort = await freePort();
    const file = join(this.#dir, `${spec.id}.yaml`);
    const d = spec.dynamicAccounts;
    await writeFile(
      file,
      [
        `cloudctl:\n  grpc: 127.0.0.1:${this.#grpcPort}\n  insecure: true\n  auth:\n    token: encrypted:env!n:TEST_AGENT_TOKEN`,
        `server:\n  host: 127.0.0.1\n  port: ${healthPort}`,
        `telemetry:\n  enabled: true\n  port: ${metricsPort}`,
        'orchestrator:\n  accounts:',
        ...spec.statics.map((a) =>
          [
            `    - name: ${a.name}`,
            `      orchConfigFile: ${a.kubeconfig}`,
            `      namespaces: ${list(a.namespaces)}`,
            '      kinds: [configMap]',
          ].join('\n'),
        ),
        'dynamicAccounts:',
        `  enabled: ${d.enabled}`,
        `  scanBatchSize: ${d.scanBatchSize ?? 572}`,
        `  scanFrequencySeconds: ${d.scanFrequencySeconds ?? 120}`,
        `  namePatterns: ${list(d.namePatterns ?? [])}`,
        `  credentialScanNamePatterns: ${list(d.credentialScanNamePatterns ?? [])}`,
        `  interceptor:\n    enabled: ${d.interceptor ?? true}`,
        'logging:\n  format: json',
        '',
      ].join('\n'),
    );
    const agent = startProcess('orch-agent', ['run', '--config', file], {
      TEST_AGENT_TOKEN: tokenOf(spec.id),
      ORCH_AGENT_ID: spec.id,
      ORCH_AGENT_ZONE_ID: spec.zone,
      KUBECONFIG: spec.kubeconfig,
      ...spec.env,
    });
    this.#agents.set(spec.id, { process: agent, metricsPort });
    await waitReady(agent, `http://127.0.0.1:${healthPort}/ready`, 60_000);
  }

  /** The running agent's log lines (JSON) with this message. */
  agentLog(agentId: string, msg: string): Array<Record<string, unknown>> {
    return (this.#agents.get(agentId)?.process.output() ?? '')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === msg);
  }

  /** The running agent's Prometheus text. */
  async agentMetrics(agentId: string): Promise<string> {
    const agent = this.#agents.get(agentId);
    if (agent === undefined) throw new Error(`agent ${agentId} is not running`);
    return (await fetch(`http://127.0.0.1:${agent.metricsPort}/metrics`)).text();
  }

  /** Kills the agent as a crashed pod dies: no goodbye to cloudctl. */
  async killAgent(agentId: string): Promise<void> {
    await this.#agents.get(agentId)?.process.stop('SIGKILL');
    this.#agents.delete(agentId);
  }

  async stop(): Promise<void> {
    for (const agent of this.#agents.values()) await agent.process.stop();
    this.#agents.clear();
    await this.#cloudctl.stop();
  }
}
