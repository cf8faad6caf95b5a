// The accounts this agent serves and their assignment state: static ones from the config now,
// dynamically assigned ones when the control plane sends them. The admin view and registration read
// it; the watch and connection parts update states.
import type { AccountConfig } from '../config/index.ts';

export type AccountState = 'PENDING' | 'ACTIVE' | 'FAILED' | 'INACTIVE';
export type AccountSource = 'static-agent-config' | 'cloudctl';

export interface AccountStatus {
  name: string;
  source: AccountSource;
  state: AccountState;
  /** Why the last assignment failed, or what it did; the control plane's lastAssignmentMsg. */
  lastAssignmentMsg: string;
  /** How the cluster is reached: `in-cluster`, a kubeconfig path (and context), or `default kubeconfig`. */
  cluster: string;
  namespaces: string[];
  updatedAt: string;
}

function clusterOf(account: AccountConfig): string {
  if (account.serviceAccount) return 'in-cluster';
  const context = account.context ? ` (context ${account.context})` : '';
  return `${account.orchConfigFile ?? 'default kubeconfig'}${context}`;
}

export class AccountRegistry {
  readonly #accounts = new Map<string, { config: AccountConfig; status: AccountStatus }>();
  readonly #now: () => Date;

  constructor(now: () => Date) {
    this.#now = now;
  }

  add(config: AccountConfig, source: AccountSource): void {
    this.#accounts.set(config.name, {
      config,
      status: {
        name: config.name,
        source,
        state: 'PENDING',
        lastAssignmentMsg: '',
        cluster: clusterOf(config),
        namespaces: config.namespaces,
        updatedAt: this.#now().toISOString(),
      },
    });
  }

  remove(name: string): boolean {
    return this.#accounts.delete(name);
  }

  setState(name: string, state: AccountState, message = ''): void {
    const entry = this.#accounts.get(name);
    if (entry === undefined) return;
    entry.status = {
      ...entry.status,
      state,
      lastAssignmentMsg: message,
      updatedAt: this.#now().toISOString(),
    };
  }

  config(name: string): AccountConfig | undefined {
    return this.#accounts.get(name)?.config;
  }

  status(name: string): AccountStatus | undefined {
    return this.#accounts.get(name)?.status;
  }

  statuses(): AccountStatus[] {
    return [...this.#accounts.values()].map((a) => a.status).sort((a, b) => a.name.localeCompare(b.name));
  }
}
