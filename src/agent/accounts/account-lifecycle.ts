// The life of every account the agent holds: static ones from the config file, and the dynamic ones
// the control plane assigns (add_accounts), takes back (delete_accounts) and whose caching it directs
// (the cache directive of `registered`, of each assignment, and of cache_directives). The rules
// (docs/protocol.md, the spec's account source rules):
// - the agent's static definition wins: an assignment of a name the config file defines is REFUSED
//   and the static account runs on untouched; a delete never removes a static account;
// - with dynamic accounts switched off (dynamicAccounts.enabled in B, dynamicAccountsEnabled in C)
//   every assignment is REFUSED with a message naming the setting;
// - an assignment of a name already held dynamically replaces it; the same definition again (the
//   control plane re-sends its assignments at each registration) keeps the running account and only
//   applies the directive, so a reconnect neither restarts nor doubles its watches;
// - secret references in a definition are resolved here with the config file's engines, and every
//   text about the account that leaves the agent goes through the definition's redaction;
// - a directive with caching off stops the account's watches (operations still run); on, starts them
//   with the directive's kinds/omitKinds where given.
// Changes to one account run one at a time, in the order they arrived; different accounts in parallel.
import { backoffSleep } from '../../lib/backoff.ts';
import type { Log } from '../../lib/log.ts';
import type { SecretEngine } from '../../secrets/index.ts';
import {
  type AccountConfig,
  type AccountDefinition,
  type DynamicAccountSettings,
  loadAccountDefinition,
  type Variant,
} from '../config/index.ts';
import type { AccountClusters } from './account-clusters.ts';
import type { AccountRegistry, CacheDirective } from './account-registry.ts';

/** One add_accounts entry: the JSON definition as sent, and its cache directive if it has one. */
export interface Assignment {
  name: string;
  definition: unknown;
  /** Absent: cache as the definition says. */
  cache?: CacheDirective;
}

export interface AccountLifecycleDeps {
  variant: Variant;
  registry: AccountRegistry;
  clusters: AccountClusters;
  dynamic: DynamicAccountSettings;
  /** The engines the config file's references were resolved with. */
  secretEngines: ReadonlyArray<SecretEngine>;
  /** Starts an ACTIVE account's watches as registry and directive say (nothing when not caching); stops them. */
  watching: { start(name: string): Promise<void>; stop(name: string): Promise<void> };
  /** What goes up the session: a state the connection re-sends each session, a one-off refusal, a forgotten account. */
  reporter: {
    status(name: string, state: 'ACTIVE' | 'FAILED', message: string): void;
    refuse(name: string, message: string): void;
    forget(name: string): void;
  };
  log: Log;
  /** How long the first reachability check of an account may take. */
  checkTimeoutMs: number;
  /** Checks of a static account that failed at start are retried after this, doubling to `retryMaxMs`. */
  retryInitialMs?: number;
  retryMaxMs?: number;
}

export class AccountLifecycle {
  readonly #deps: AccountLifecycleDeps;
  readonly #log: Log;
  /** Resolved dynamic definitions by account name: their redaction and their secret files. */
  readonly #definitions = new Map<string, AccountDefinition>();
  /** The tail of each account's chain of changes. */
  readonly #queues = new Map<string, Promise<void>>();

  constructor(deps: AccountLifecycleDeps) {
    this.#deps = deps;
    this.#log = deps.log.child({ component: 'accounts' });
  }

  addStatic(accounts: ReadonlyArray<AccountConfig>): void {
    for (const account of accounts) this.#deps.registry.add(account, 'static-agent-config');
  }

  /** The registry's watch filter: the account's kinds as its directive leaves them. */
  watchFilter(name: string): { kinds: string[]; omitKinds: string[] } | undefined {
    return this.#deps.registry.watchFilter(name);
  }

  /** Connects an account and reports its state to the control plane; true when it is ACTIVE. */
  async activate(account: AccountConfig): Promise<boolean> {
    const { clusters, registry, reporter } = this.#deps;
    const connected = await clusters.connect(account, AbortSignal.timeout(this.#deps.checkTimeoutMs));
    // The registry's message has been through the account's redaction.
    const message = registry.status(account.name)?.lastAssignmentMsg ?? '';
    reporter.status(account.name, connected ? 'ACTIVE' : 'FAILED', message);
    if (connected)
      this.#log.info({ account: account.name, cluster: clusters.info(account.name) }, 'account active');
    else this.#log.error({ account: account.name, reason: message }, 'account failed');
    return connected;
  }

  /**
   * Activates the config file's accounts; each one that fails (its cluster unreachable or slow at
   * start, its credentials refused) is checked again in the background, after 5 s doubling to 5 min,
   * until it is ACTIVE, and then its watches start. Without it an API server that was down, or
   * starved, while the agent started left the account FAILED until a restart. (Dynamic accounts are
   * sent again by the control plane at each registration.)
   */
  async activateStatic(accounts: ReadonlyArray<AccountConfig>, signal: AbortSignal): Promise<void> {
    const activated = await Promise.all(accounts.map((account) => this.activate(account)));
    accounts.forEach((account, i) => {
      if (activated[i] !== true) void this.#retry(account, signal);
    });
  }

  async #retry(account: AccountConfig, signal: AbortSignal): Promise<void> {
    const retry = backoffSleep({
      initialDelayMs: this.#deps.retryInitialMs ?? 5000,
      multiplier: 2,
      jitter: 0,
      maxDelayMs: this.#deps.retryMaxMs ?? 5 * 60_000,
    });
    while (!signal.aborted) {
      this.#log.info(
        { account: account.name, retryInMs: retry.nextDelayMs },
        'account failed; checking it again later',
      );
      await retry.wait(signal);
      if (signal.aborted) return;
      let active = false;
      await this.#serial(account.name, async () => {
        if (signal.aborted || this.#deps.registry.status(account.name)?.source !== 'static-agent-config')
          return;
        active = await this.activate(account);
        if (active && !signal.aborted) await this.#deps.watching.start(account.name);
      });
      if (active) return;
    }
  }

  /** add_accounts. Resolves once every entry has been taken, refused or has failed. */
  assign(assignments: ReadonlyArray<Assignment>): Promise<void> {
    return Promise.all(assignments.map((a) => this.#serial(a.name, () => this.#assign(a)))).then(
      () => undefined,
    );
  }

  /** delete_accounts. */
  unassign(names: ReadonlyArray<string>): Promise<void> {
    return Promise.all(names.map((name) => this.#serial(name, () => this.#unassign(name)))).then(
      () => undefined,
    );
  }

  /**
   * Cache directives of `registered` and of cache_directives; accounts not named keep theirs. An
   * account with no change under way takes its directive at once, so watches started right after
   * (at `connected`) already follow it; the watches themselves change in the account's turn.
   */
  direct(directives: ReadonlyArray<CacheDirective & { account: string }>): Promise<void> {
    return Promise.all(
      directives.map(({ account, ...directive }) => {
        if (this.#queues.has(account)) return this.#serial(account, () => this.#direct(account, directive));
        const before = this.watchFilter(account);
        this.#deps.registry.setDirective(account, directive);
        return this.#serial(account, () => this.#follow(account, before));
      }),
    ).then(() => undefined);
  }

  /** At shutdown, after the watches stopped: removes the files written for secret references. */
  async close(): Promise<void> {
    await Promise.all([...this.#queues.values()]);
    await Promise.all([...this.#definitions.values()].map((d) => d.dispose()));
    this.#definitions.clear();
  }

  #serial(name: string, change: () => Promise<void>): Promise<void> {
    const next = (this.#queues.get(name) ?? Promise.resolve()).then(change).catch((error: unknown) => {
      this.#log.error({ account: name, err: error }, 'account change failed');
    });
    this.#queues.set(name, next);
    void next.then(() => {
      if (this.#queues.get(name) === next) this.#queues.delete(name);
    });
    return next;
  }

  #refuse(name: string, message: string): void {
    this.#log.warn({ account: name, reason: message }, 'dynamic account refused');
    this.#deps.reporter.refuse(name, message);
  }

  async #assign({ name, definition, cache }: Assignment): Promise<void> {
    const { registry, dynamic, reporter } = this.#deps;
    if (!dynamic.enabled) {
      this.#refuse(
        name,
        `dynamic accounts are disabled on this agent (${dynamic.setting ?? 'dynamic accounts'}: false); the assignment of '${name}' was not taken`,
      );
      return;
    }
    const held = registry.status(name);
    if (held?.source === 'static-agent-config') {
      this.#refuse(
        name,
        `account '${name}' is defined in the agent's config file (orchestrator.accounts): the agent's own definition wins over the control plane's, and the static account keeps running unchanged`,
      );
      return;
    }
    const loaded = await loadAccountDefinition(
      this.#deps.variant,
      name,
      definition,
      this.#deps.secretEngines,
    );
    const current = this.#definitions.get(name);
    if (
      loaded.ok &&
      held?.state === 'ACTIVE' &&
      current !== undefined &&
      current.fingerprint === loaded.definition.fingerprint
    ) {
      // The same definition again: the account keeps running; only its directive may have changed.
      await loaded.definition.dispose();
      reporter.status(name, 'ACTIVE', held.lastAssignmentMsg);
      await this.#direct(name, cache);
      this.#log.debug({ account: name }, 'dynamic account assigned again with the same definition; kept');
      return;
    }
    if (held !== undefined) await this.#drop(name);
    if (!loaded.ok) {
      registry.setDirective(name, undefined);
      this.#log.error(
        { account: name, reason: loaded.message },
        'dynamic account failed: invalid definition',
      );
      reporter.status(name, 'FAILED', `invalid account definition: ${loaded.message}`);
      return;
    }
    const { account, redact } = loaded.definition;
    this.#definitions.set(name, loaded.definition);
    registry.setDirective(name, cache);
    registry.add(account, 'cloudctl', redact);
    this.#log.info(
      { account: name, replaces: held !== undefined, caching: registry.caching(name) },
      'dynamic account assigned',
    );
    if (await this.activate(account)) await this.#deps.watching.start(name);
  }

  async #unassign(name: string): Promise<void> {
    const held = this.#deps.registry.status(name);
    if (held?.source === 'static-agent-config') {
      this.#log.info(
        { account: name },
        "delete_accounts ignored for a static account: the agent's config file defines it, and only a change of that file removes it",
      );
      return;
    }
    this.#deps.reporter.forget(name);
    this.#deps.registry.setDirective(name, undefined);
    if (held === undefined) {
      this.#log.debug(
        { account: name },
        'delete_accounts for an account the agent does not hold; nothing to do',
      );
      return;
    }
    await this.#drop(name);
    this.#log.info({ account: name }, 'dynamic account removed');
  }

  async #direct(name: string, directive: CacheDirective | undefined): Promise<void> {
    const before = this.watchFilter(name);
    this.#deps.registry.setDirective(name, directive);
    await this.#follow(name, before);
  }

  /** Restarts an ACTIVE account's watches when its directive changed what it watches. */
  async #follow(name: string, before: ReturnType<AccountLifecycle['watchFilter']>): Promise<void> {
    const { registry, watching } = this.#deps;
    const filter = this.watchFilter(name);
    // Compared by effect: `enabled: true` with no kinds is the account's own config, as no directive is.
    if (JSON.stringify(before) === JSON.stringify(filter) || registry.status(name)?.state !== 'ACTIVE')
      return;
    await watching.stop(name);
    await watching.start(name);
    this.#log.info(
      { account: name, caching: filter !== undefined, ...(filter ?? {}) },
      filter === undefined
        ? 'caching off for the account: watches stopped, operations still run'
        : 'caching on for the account: watching',
    );
  }

  async #drop(name: string): Promise<void> {
    await this.#deps.watching.stop(name);
    this.#deps.clusters.disconnect(name);
    this.#deps.registry.remove(name);
    await this.#definitions.get(name)?.dispose();
    this.#definitions.delete(name);
  }
}
