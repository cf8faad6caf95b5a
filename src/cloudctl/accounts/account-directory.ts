// Every account cloudctl knows, from wherever it was defined: registered by an agent from its
// config file, or defined in cloudctl (credentials). The HTTP API asks it who may do what on an
// account, and whether the account exists at all.
import type { AccountPermissions } from '../auth/index.ts';
import type { ChangeCounter } from '../store/index.ts';

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
  list(): Promise<KnownAccount[]>;
}

/** Accounts agents registered at hello (static accounts of their config files) or were assigned. */
export function agentAccounts(store: {
  agents: { accounts(): Promise<{ name: string; agentId: string; permissions: AccountPermissions }[]> };
}): AccountLookup {
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
  return { list: async () => (await store.agents.accounts()).map(toKnown) };
}

export interface AccountDirectoryOptions {
  /** Bumped by this process's writes of accounts; a bump makes the next read reload. */
  changes: ChangeCounter;
  /**
   * How old the copy may get before a read reloads it, for writes this process does not see (another
   * cloudctl replica on the same database).
   */
  maxAgeMs: number;
  now?: () => number;
}

interface Snapshot {
  byName: ReadonlyMap<string, KnownAccount>;
  sorted: readonly KnownAccount[];
  generation: number;
  loadedAt: number;
}

/**
 * Every account, answered from an in-memory copy: a read that checks an account is on the path of
 * every HTTP request, and asking the database each time cost more than the read itself
 * (bench/read-api.ts). The copy is a few fields per account, not cluster objects.
 */
export class AccountDirectory {
  readonly #lookups: readonly AccountLookup[];
  readonly #options: AccountDirectoryOptions;
  readonly #now: () => number;
  #snapshot: Snapshot | undefined;
  #loading: { generation: number; snapshot: Promise<Snapshot> } | undefined;

  constructor(lookups: readonly AccountLookup[], options: AccountDirectoryOptions) {
    this.#lookups = lookups;
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** The account by name; an agent's definition wins over cloudctl's, as the spec says. */
  async find(name: string): Promise<KnownAccount | undefined> {
    return (await this.#current()).byName.get(name);
  }

  /** Every account, by name; where two sources define a name, the first source's definition. */
  async list(): Promise<KnownAccount[]> {
    return [...(await this.#current()).sorted];
  }

  #current(): Promise<Snapshot> {
    const generation = this.#options.changes.value;
    const snapshot = this.#snapshot;
    if (
      snapshot !== undefined &&
      snapshot.generation === generation &&
      this.#now() - snapshot.loadedAt < this.#options.maxAgeMs
    ) {
      return Promise.resolve(snapshot);
    }
    // Readers share a load begun since the last write of this process. A reader that comes after a
    // write does not share one begun before it: that load may have read the accounts before the
    // write, and a client that deleted an account and then asked for it would be told it exists.
    if (this.#loading?.generation !== generation) {
      const loading = {
        generation,
        snapshot: this.#load(generation).finally(() => {
          if (this.#loading === loading) this.#loading = undefined;
        }),
      };
      this.#loading = loading;
    }
    return this.#loading.snapshot;
  }

  async #load(generation: number): Promise<Snapshot> {
    const loadedAt = this.#now();
    const byName = new Map<string, KnownAccount>();
    // Concurrently: on PostgreSQL the sources' queries overlap.
    for (const accounts of await Promise.all(this.#lookups.map((lookup) => lookup.list()))) {
      for (const account of accounts) if (!byName.has(account.name)) byName.set(account.name, account);
    }
    const sorted = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
    const snapshot = { byName, sorted, generation, loadedAt };
    // A load begun before a newer one may end after it: the newer copy stays.
    const kept = this.#snapshot;
    if (
      kept === undefined ||
      kept.generation < generation ||
      (kept.generation === generation && kept.loadedAt <= loadedAt)
    )
      this.#snapshot = snapshot;
    return snapshot;
  }
}
