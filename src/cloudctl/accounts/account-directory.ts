// Every account cloudctl knows, from wherever it was defined: registered by an agent from its
// config file, or defined in cloudctl (credentials). The HTTP API asks it who may do what on an
// account, and whether the account exists at all.
import type { AccountPermissions } from '../auth/index.ts';
import type { CloudctlStore } from '../store/index.ts';

export type AccountSource = 'static-agent-config' | 'cloudctl';

export interface KnownAccount {
  name: string;
  source: AccountSource;
  permissions: AccountPermissions;
  /** The agent that registered or was assigned the account, if any. */
  agentId: string | undefined;
}

/** One place accounts are defined; the directory asks each in turn. */
export interface AccountLookup {
  find(name: string): Promise<KnownAccount | undefined>;
  list(): Promise<KnownAccount[]>;
}

/** Accounts agents registered at hello (static accounts of their config files) or were assigned. */
export function agentAccounts(store: CloudctlStore): AccountLookup {
  const toKnown = (account: {
    name: string;
    agentId: string;
    permissions: AccountPermissions;
  }): KnownAccount => ({
    name: account.name,
    source: 'static-agent-config',
    permissions: account.permissions,
    agentId: account.agentId,
  });
  return {
    find: async (name) => {
      const account = await store.agents.account(name);
      return account === undefined ? undefined : toKnown(account);
    },
    list: async () => (await store.agents.accounts()).map(toKnown),
  };
}

export class AccountDirectory {
  readonly #lookups: readonly AccountLookup[];

  constructor(lookups: readonly AccountLookup[]) {
    this.#lookups = lookups;
  }

  /** The account by name; an agent's definition wins over cloudctl's, as the spec says. */
  async find(name: string): Promise<KnownAccount | undefined> {
    for (const lookup of this.#lookups) {
      const found = await lookup.find(name);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** Every account, by name; where two sources define a name, the first source's definition. */
  async list(): Promise<KnownAccount[]> {
    const byName = new Map<string, KnownAccount>();
    for (const lookup of this.#lookups) {
      for (const account of await lookup.list())
        if (!byName.has(account.name)) byName.set(account.name, account);
    }
    return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }
}
