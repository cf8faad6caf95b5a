// The accounts this agent serves and their assignment state: static ones from the config, dynamic
// ones the control plane assigned, and the cache directive of each (whether the agent streams its
// resources, or only runs its operations). The admin view and registration read it; the account
// lifecycle and the cluster connections update it. Every text it holds about an account has been
// through the account's redaction, so a status can be shown or sent as it is.
import type { AccountConfig } from '../config/index.ts';

export type AccountState = 'PENDING' | 'ACTIVE' | 'FAILED' | 'INACTIVE';
export type AccountSource = 'static-agent-config' | 'cloudctl';

/** What the control plane asks the agent to cache of one account (proto CacheDirective). */
export interface CacheDirective {
  /** false: no watches and no resource events; operations still run. */
  enabled: boolean;
  /** When non-empty, replace the account's own `kinds` / `omitKinds` for what is watched. */
  kinds: string[];
  omitKinds: string[];
}

export interface AccountStatus {
  name: string;
  source: AccountSource;
  state: AccountState;
  /** Why the last assignment failed, or what it did; the control plane's lastAssignmentMsg. */
  lastAssignmentMsg: string;
  /** How the cluster is reached: `in-cluster`, a kubeconfig path or reference (and context), or `default kubeconfig`. */
  cluster: string;
  namespaces: string[];
  /** Whether the agent streams the account's resources (its cache directive); false: operations only. */
  caching: boolean;
  updatedAt: string;
}

function clusterOf(account: AccountConfig): string {
  if (account.serviceAccount) return 'in-cluster';
  const context = account.context ? ` (context ${account.context})` : '';
  return `${account.orchConfigFile ?? 'default kubeconfig'}${context}`;
}

const unchanged = (text: string) => text;

interface Entry {
  config: AccountConfig;
  status: Omit<AccountStatus, 'caching'>;
  redact: (text: string) => string;
}

export class AccountRegistry {
  readonly #accounts = new Map<string, Entry>();
  /** By account name; kept apart from the accounts, as a directive may come before its account. */
  readonly #directives = new Map<string, CacheDirective>();
  readonly #now: () => Date;

  constructor(now: () => Date) {
    this.#now = now;
  }

  /** `redact` hides resolved secrets of a dynamic definition in every text kept about it. */
  add(config: AccountConfig, source: AccountSource, redact: (text: string) => string = unchanged): void {
    this.#accounts.set(config.name, {
      config,
      redact,
      status: {
        name: config.name,
        source,
        state: 'PENDING',
        lastAssignmentMsg: '',
        cluster: redact(clusterOf(config)),
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
      lastAssignmentMsg: entry.redact(message),
      updatedAt: this.#now().toISOString(),
    };
  }

  /** undefined: cache as the account's own config says. */
  setDirective(name: string, directive: CacheDirective | undefined): void {
    if (directive === undefined) this.#directives.delete(name);
    else this.#directives.set(name, directive);
  }

  directive(name: string): CacheDirective | undefined {
    return this.#directives.get(name);
  }

  caching(name: string): boolean {
    return this.#directives.get(name)?.enabled ?? true;
  }

  config(name: string): AccountConfig | undefined {
    return this.#accounts.get(name)?.config;
  }

  /**
   * What to watch of an account: its own kinds filters, replaced by the directive's where it gives
   * them; undefined when it is not held or its directive turns caching off.
   */
  watchFilter(name: string): { kinds: string[]; omitKinds: string[] } | undefined {
    const account = this.config(name);
    const directive = this.directive(name);
    if (account === undefined || directive?.enabled === false) return undefined;
    return {
      kinds: directive !== undefined && directive.kinds.length > 0 ? directive.kinds : account.kinds,
      omitKinds:
        directive !== undefined && directive.omitKinds.length > 0 ? directive.omitKinds : account.omitKinds,
    };
  }

  status(name: string): AccountStatus | undefined {
    const entry = this.#accounts.get(name);
    return entry === undefined ? undefined : { ...entry.status, caching: this.caching(name) };
  }

  statuses(): AccountStatus[] {
    return [...this.#accounts.keys()]
      .flatMap((name) => this.status(name) ?? [])
      .sort((a, b) => a.name.localeCompare(b.name));
  }
}
