// A control plane that knows three agents (agent-a, agent-b, agent-c), test agents that say what a
// real agent says at hello (zone, static accounts, dynamic-account settings), and accounts defined in
// cloudctl through POST /credentials, as users define them.
import { hashToken } from '../../../src/cloudctl/index.ts';
import type { ControlMessage__Output, Hello } from '../../../src/proto/index.ts';
import { startTestControlPlane, TestAgent, type TestControlPlane, USERS } from '../harness.ts';
import { type ApiClient, apiClient } from '../http-client.ts';

export const AGENTS = ['agent-a', 'agent-b', 'agent-c'] as const;
export type AgentId = (typeof AGENTS)[number];

export function tokenOf(agentId: AgentId): string {
  return `token-of-${agentId}-5e1d`;
}

export interface DynamicSettings {
  enabled?: boolean;
  interceptorEnabled?: boolean;
  scanBatchSize?: number;
  scanFrequencySeconds?: number;
  namePatterns?: string[];
  credentialScanNamePatterns?: string[];
}

export interface AgentPlan {
  zone: string;
  /** Accounts of its config file. */
  statics?: string[];
  /** Cloudctl accounts it still holds (it reconnected without restarting). */
  held?: string[];
  dynamic?: DynamicSettings;
}

export function helloOf(agentId: AgentId, plan: AgentPlan): Hello {
  const account = (name: string, source: 'STATIC_AGENT_CONFIG' | 'CLOUDCTL') => ({
    name,
    permissions: { read: ['dev'], write: ['ops'] },
    apiServerHost: 'https://127.0.0.1:6443',
    kubernetesVersion: 'v1.33.1',
    source,
    caching: true,
  });
  return {
    agentId,
    version: '0.1.0',
    zoneId: plan.zone,
    replicaCount: 1,
    accounts: [
      ...(plan.statics ?? []).map((name) => account(name, 'STATIC_AGENT_CONFIG')),
      ...(plan.held ?? []).map((name) => account(name, 'CLOUDCTL')),
    ],
    dynamicAccounts: {
      enabled: true,
      interceptorEnabled: false,
      scanBatchSize: 572,
      scanFrequencySeconds: 120,
      namePatterns: [],
      credentialScanNamePatterns: [],
      ...plan.dynamic,
    },
  };
}

/** Names in the add_accounts messages received so far, one list per message. */
export function addBatches(agent: TestAgent): string[][] {
  return agent.received.flatMap((m) =>
    m.message === 'addAccounts' && m.addAccounts != null ? [m.addAccounts.accounts.map((a) => a.name)] : [],
  );
}

export function added(agent: TestAgent): string[] {
  return addBatches(agent).flat();
}

export function deleted(agent: TestAgent): string[] {
  return agent.received.flatMap((m) =>
    m.message === 'deleteAccounts' && m.deleteAccounts != null ? m.deleteAccounts.names : [],
  );
}

/** The cache directives an agent was given for the account, in order: registration, adds, moves. */
export function cachingOf(agent: TestAgent, account: string): boolean[] {
  const flags: boolean[] = [];
  for (const m of agent.received) {
    const directives =
      m.message === 'registered'
        ? (m.registered?.cache ?? [])
        : m.message === 'addAccounts'
          ? (m.addAccounts?.accounts ?? []).flatMap((a) => (a.cache == null ? [] : [a.cache]))
          : m.message === 'cacheDirectives'
            ? (m.cacheDirectives?.directives ?? [])
            : [];
    for (const d of directives) if (d.account === account) flags.push(d.enabled);
  }
  return flags;
}

export function isAddOf(account: string): (m: ControlMessage__Output) => boolean {
  return (m) =>
    m.message === 'addAccounts' && (m.addAccounts?.accounts ?? []).some((a) => a.name === account);
}

export class DynamicFixture {
  readonly cp: TestControlPlane;
  readonly root: ApiClient;
  readonly dana: ApiClient;
  readonly olaf: ApiClient;
  readonly #agents: TestAgent[] = [];

  private constructor(cp: TestControlPlane) {
    this.cp = cp;
    this.root = apiClient(cp.url, USERS.admin.token);
    this.dana = apiClient(cp.url, USERS.dev.token);
    this.olaf = apiClient(cp.url, USERS.ops.token);
  }

  /** cloudctl knowing the test agents; `config` adds to (or overrides) its configuration. */
  static async start(config: Record<string, unknown> = {}): Promise<DynamicFixture> {
    const cp = await startTestControlPlane({
      agents: AGENTS.map((id) => ({ id, tokenHash: hashToken(tokenOf(id)) })),
      ...config,
    });
    return new DynamicFixture(cp);
  }

  /** Defines an account in cloudctl (READ dev, WRITE ops) and checks it was taken. */
  async define(name: string, extra: Record<string, unknown> = {}): Promise<void> {
    const answer = await this.root.post('/credentials', {
      name,
      type: 'orchestrator',
      orchConfigFile: `/etc/kube/${name}.yaml`,
      permissions: { READ: ['dev'], WRITE: ['ops'] },
      ...extra,
    });
    if (answer.status !== 200)
      throw new Error(`defining ${name}: ${answer.status} ${JSON.stringify(answer.body)}`);
  }

  /** A test agent that said hello and was registered. */
  async connect(agentId: AgentId, plan: AgentPlan): Promise<TestAgent> {
    const agent = new TestAgent(this.cp.address, { token: tokenOf(agentId) });
    this.#agents.push(agent);
    await agent.connect(helloOf(agentId, plan));
    return agent;
  }

  /** Polls the account record until `ok` holds; fails with the last record. */
  // biome-ignore lint/suspicious/noExplicitAny: records are read field by field.
  async recordUntil(name: string, ok: (record: any) => boolean, timeoutMs = 10_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = await this.root.get(`/vendor/accounts/${name}`);
      if (answer.status === 200 && ok(answer.body)) return answer.body;
      if (Date.now() > deadline)
        throw new Error(
          `account ${name} not as expected within ${timeoutMs} ms: ${JSON.stringify(answer.body)}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  closeAgents(): void {
    for (const agent of this.#agents.splice(0)) agent.close();
  }

  async close(): Promise<void> {
    this.closeAgents();
    await this.cp.close();
  }
}
