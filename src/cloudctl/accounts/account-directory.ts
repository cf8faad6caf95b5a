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

/** One place accounts are defined; the directory asks them all at once and ranks the answers. */
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
    // Concurrently: on PostgreSQL the sources' queries overlap, so a read that checks an account
    // costs one round trip, not one per source (bench/read-api.ts measures it).
    const found = await Promise.all(this.#lookups.map((lookup) => lookup.find(name)));
    return found.find((account) => account !== undefined);
  }

  /** Every account, by name; where two sources define a name, the first source's definition. */
  async list(): Promise<KnownAccount[]> {
    const byName = new Map<string, KnownAccount>();
    for (const accounts of await Promise.all(this.#lookups.map((lookup) => lookup.list()))) {
      for (const account of accounts) if (!byName.has(account.name)) byName.set(account.name, account);
    }
    return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }
}
