// Which connected agents hold which cloudctl-defined account, and which one of them caches it. One
// pass (`#place`) compares what should be with what is and sends the difference: add_accounts (in
// batches of the agent's scanBatchSize), delete_accounts, and cache_directives when caching moves.
// Every event that can change the answer runs a pass: a session opening or ending, an agent's report,
// an activation or a delete through the API, a subscription scan, an account created on the fly.
// Passes run one at a time, so two events never send the same account twice.
//
// An agent may hold an account when it takes dynamic accounts (hello's dynamic_accounts.enabled), no
// agent at all holds a static account of that name (rule 2: the agent's definition wins, so cloudctl's
// goes to nobody while an agent defines the name; the conflict is written in the account's
// lastAssignmentMsg) and it has not refused it in this session, and either
//   - the account is registered and activated (not INACTIVE), pinned to the agent's zone or to none, or
//   - the agent's subscription (variant B patterns) matches it and no registration holds it INACTIVE.
// Activated accounts go out at once; subscribed ones at the agent's scans (registration, then every
// scanFrequencySeconds) or, with the interceptor, as soon as POST /credentials creates them.
// When an agent comes to define statically a name cloudctl had placed on other agents, those agents are
// told to drop it, and if one of them cached it, what it cached is evicted and the static owner asked to
// list the account again (caching off, then on): the cache then holds one writer's objects only.
import type { Logger } from 'pino';
import type { CredentialStore, StoredCredentials } from '../credentials/index.ts';
import type {
  AccountReport,
  AgentRegistry,
  AgentSession,
  CacheDirective,
  SessionAccount,
  SessionListener,
  SessionView,
} from '../sessions/index.ts';
import { type AccountState, isActivated, transition } from './account-state.ts';
import type { DynamicAccountStore, Holder, Registration } from './dynamic-account-store.ts';
import {
  type AccountPlan,
  chooseCacher,
  type Outbox,
  Outboxes,
  type PlacementView,
} from './placement-pass.ts';
import { type Subscription, subscriptionOf } from './subscription.ts';

export interface PlacementDeps {
  registry: AgentRegistry;
  store: {
    credentials: CredentialStore;
    /** The agents' own (static) accounts: a name here is its agent's alone (rule 2). */
    agents: { accounts(): Promise<ReadonlyArray<{ name: string; agentId: string }>> };
    /** Evicts what is cached of accounts (a name whose writer changes to its static owner). */
    cache: { forgetAccounts(accounts: readonly string[]): Promise<number> };
    /** Sessions held by live replicas: a holder on a session none holds is gone. */
    replicas: { liveSessionIds(): Promise<string[]> };
    dynamicAccounts: DynamicAccountStore;
  };
  logger: Logger;
  now: () => Date;
  /**
   * Sessions other live cloudctl replicas hold (replicas on one PostgreSQL). Their holders are that
   * replica's to place and release; this one only counts them (none for a single cloudctl).
   */
  sessionsElsewhere?: () => Promise<ReadonlySet<string>>;
  /**
   * Tells the other replicas to make a pass too, after a change through the API here: each places
   * accounts on the agents connected to it.
   */
  announce?: (trigger: { intercept?: string }) => void;
  /** Timers for subscription scans; tests may pass their own. */
  setInterval?: (run: () => void, ms: number) => NodeJS.Timeout;
  clearInterval?: (timer: NodeJS.Timeout) => void;
}

/** What a pass was started by, for the additions only subscriptions gate. */
interface Trigger {
  /** The session whose subscription is scanned now. */
  scan?: string;
  /** An account just created: sessions with the interceptor take it now. */
  intercept?: string;
}

/** Fields of a credentials definition that are cloudctl's, not the agent's account entry. */
const CLOUDCTL_FIELDS = ['name', 'type', 'environment', 'accountType'];

function directive(account: string, enabled: boolean): CacheDirective {
  return { account, enabled, kinds: [], omitKinds: [] };
}

function role(caching: boolean): string {
  return caching ? 'caching and operations' : 'operations only';
}

/** The definition an agent receives: the agent's entry, with the registration's cluster config. */
export function definitionFor(
  credentials: StoredCredentials,
  registration: Registration | undefined,
): Record<string, unknown> {
  const definition: Record<string, unknown> = { ...credentials.definition };
  for (const field of CLOUDCTL_FIELDS) delete definition[field];
  const override = registration?.orchConfigFile ?? null;
  if (override !== null) {
    // The migration entry names the one way to the cluster; the definition's others would contradict it.
    delete definition.orchConfigContents;
    delete definition.serviceAccount;
    definition.orchConfigFile = override;
  }
  return definition;
}

export class AccountPlacement implements SessionListener {
  readonly #deps: PlacementDeps;
  readonly #log: Logger;
  #queue: Promise<void> = Promise.resolve();
  readonly #subscriptions = new Map<string, { subscription: Subscription; timer?: NodeJS.Timeout }>();
  /** `${sessionId}\n${account}`: refused by that session; not sent again until it reconnects or PATCH. */
  readonly #refused = new Set<string>();
  /**
   * `${sessionId}\n${account}`: the definition last sent on that session. A pass sends it again when
   * it changed (PUT /credentials, a new orchConfigFile); an agent replaces a changed definition and
   * keeps an identical one running. In memory: a session does not outlive the process.
   */
  readonly #sent = new Map<string, string>();
  /** Cloudctl accounts a reconnecting agent listed that it may no longer hold, to drop once registered. */
  readonly #dropAtOpen = new Map<string, string[]>();
  /** `${account}\n${agentId}`: rule 2 conflicts already reported in the log, once each per process. */
  readonly #reported = new Set<string>();
  #closed = false;

  constructor(deps: PlacementDeps) {
    this.#deps = deps;
    this.#log = deps.logger.child({ component: 'dynamic-accounts' });
  }

  /** Runs `work` after every pass and event before it. */
  serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work);
    this.#queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Sessions of an earlier run hold nothing now: the agents will reconnect and be placed again. The
   * sessions other live replicas hold (cloudctl on a shared PostgreSQL) are theirs and stay.
   */
  async start(): Promise<void> {
    await this.serial(async () => {
      const live = await this.#deps.store.replicas.liveSessionIds();
      await this.#deps.store.dynamicAccounts.dropSessionsOtherThan(live);
      // At start, a config-file account whose name an agent already defines is said at once.
      this.#reportConflicts(await this.#deps.store.credentials.list(), await this.#staticOwners());
    });
  }

  /**
   * Warns, once per name and agent, of each name both cloudctl and an agent's config define (rule
   * 2): an operator who put it in cloudctl's config file or posted it learns it is not in force.
   */
  #reportConflicts(defined: readonly StoredCredentials[], staticOwners: ReadonlyMap<string, string>): void {
    for (const credentials of defined) {
      const owner = staticOwners.get(credentials.name);
      const key = `${credentials.name}\n${owner}`;
      if (owner === undefined || this.#reported.has(key)) continue;
      this.#reported.add(key);
      const where =
        credentials.configFile === undefined
          ? 'through the API'
          : `in cloudctl's config file ${credentials.configFile}`;
      this.#log.warn(
        { account: credentials.name, agentId: owner, configFile: credentials.configFile },
        `account ${credentials.name} is defined ${where} and in agent ${owner}'s config file: the agent's definition wins (rule 2), so cloudctl's is sent to no agent`,
      );
    }
  }

  close(): void {
    this.#closed = true;
    for (const { timer } of this.#subscriptions.values()) {
      if (timer !== undefined) (this.#deps.clearInterval ?? clearInterval)(timer);
    }
    this.#subscriptions.clear();
  }

  /** A pass over every account, as after a scan. */
  place(trigger: Trigger = {}): Promise<void> {
    return this.serial(() => this.#place(trigger));
  }

  /** A pass here and on every other replica: an account's definition or registration changed. */
  async placeEverywhere(trigger: { intercept?: string } = {}): Promise<void> {
    await this.place(trigger);
    this.#deps.announce?.(trigger);
  }

  /** Runs `work` (an API change to registrations) and a pass after it, with no event in between. */
  async change<T>(work: () => Promise<T>): Promise<T> {
    const result = await this.serial(async () => {
      const done = await work();
      await this.#place({});
      return done;
    });
    this.#deps.announce?.({});
    return result;
  }

  /** PATCH: the account is tried again everywhere, refusals and failures forgotten. Inside `change`. */
  async retry(account: string): Promise<void> {
    const { dynamicAccounts } = this.#deps.store;
    for (const holder of await dynamicAccounts.holders(account)) {
      if (holder.status !== 'FAILED') continue;
      await dynamicAccounts.dropHolder(account, holder.agentId);
      this.#forgetOnSession(holder.agentId, account);
    }
    for (const key of [...this.#refused]) if (key.endsWith(`\n${account}`)) this.#refused.delete(key);
  }

  /** POST /credentials created an account: interceptors take it now, if it matches. */
  created(account: string): Promise<void> {
    return this.placeEverywhere({ intercept: account });
  }

  // --- SessionListener ---

  opening(session: AgentSession): Promise<CacheDirective[]> {
    return this.serial(async () => {
      const subscription = subscriptionOf(session.dynamicAccounts);
      for (const { pattern, reason } of subscription.invalid) {
        this.#log.warn(
          { agentId: session.agentId, pattern, reason },
          'subscription pattern is no regular expression; it matches nothing',
        );
      }
      this.#subscriptions.set(session.sessionId, { subscription });
      const listed = session.accounts.filter((a) => a.source === 'cloudctl');
      if (listed.length === 0) return [];
      // An agent that reconnected without restarting still holds these; keep those it may hold.
      const { store, now } = this.#deps;
      const definitions = new Map((await store.credentials.list()).map((c) => [c.name, c]));
      const staticOwners = await this.#staticOwners();
      const directives: CacheDirective[] = [];
      const drop: string[] = [];
      for (const account of listed) {
        const credentials = definitions.get(account.name);
        const registration = await store.dynamicAccounts.registration(account.name);
        if (credentials === undefined || !this.#mayHold(session, credentials, registration, staticOwners)) {
          drop.push(account.name);
          continue;
        }
        const others = (await store.dynamicAccounts.holders(account.name)).filter(
          (h) => h.agentId !== session.agentId,
        );
        const caching = !others.some((h) => h.caching && h.status !== 'FAILED');
        await store.dynamicAccounts.putHolder(
          {
            account: account.name,
            agentId: session.agentId,
            sessionId: session.sessionId,
            caching,
            status: 'ACTIVE',
            message: '',
          },
          now(),
        );
        directives.push(directive(account.name, caching));
      }
      if (drop.length > 0) {
        this.#dropAtOpen.set(session.sessionId, drop);
        this.#deps.registry.setAccounts(
          session.sessionId,
          session.accounts.filter((a) => !drop.includes(a.name)),
        );
      }
      return directives;
    });
  }

  opened(session: AgentSession): Promise<void> {
    return this.serial(async () => {
      const drop = this.#dropAtOpen.get(session.sessionId);
      this.#dropAtOpen.delete(session.sessionId);
      if (drop !== undefined) session.send({ deleteAccounts: { names: drop } });
      const entry = this.#subscriptions.get(session.sessionId);
      const seconds = session.dynamicAccounts.scanFrequencySeconds;
      if (entry?.subscription.active && seconds > 0 && !this.#closed) {
        entry.timer = (this.#deps.setInterval ?? setInterval)(() => {
          this.place({ scan: session.sessionId }).catch((error: unknown) =>
            this.#log.error({ err: error, agentId: session.agentId }, 'subscription scan failed'),
          );
        }, seconds * 1000);
        entry.timer.unref?.();
      }
      // The first scan is the registration itself: a restarted agent gets its accounts back now.
      await this.#place({ scan: session.sessionId });
    });
  }

  closed(session: SessionView): Promise<void> {
    return this.serial(async () => {
      const entry = this.#subscriptions.get(session.sessionId);
      if (entry?.timer !== undefined) (this.#deps.clearInterval ?? clearInterval)(entry.timer);
      this.#subscriptions.delete(session.sessionId);
      this.#dropAtOpen.delete(session.sessionId);
      for (const keys of [this.#refused, this.#sent.keys()])
        for (const key of [...keys]) if (key.startsWith(`${session.sessionId}\n`)) this.#forgetKey(key);
      const held = await this.#deps.store.dynamicAccounts.dropSession(session.sessionId);
      if (held.length > 0)
        this.#log.info(
          { agentId: session.agentId, accounts: held },
          'session ended: handing its accounts over',
        );
      if (!this.#closed) await this.#place({});
    });
  }

  accountStatus(session: AgentSession, report: AccountReport): Promise<boolean> {
    return this.serial(async () => {
      const { store, now } = this.#deps;
      const holder = (await store.dynamicAccounts.holders(report.account)).find(
        (h) => h.agentId === session.agentId && h.sessionId === session.sessionId,
      );
      if (holder === undefined) return false;
      const registration = await store.dynamicAccounts.registration(report.account);
      const say = (message: string) =>
        registration === undefined
          ? Promise.resolve()
          : store.dynamicAccounts.setMessage(report.account, message, now());
      switch (report.state) {
        case 'ACTIVE':
          await store.dynamicAccounts.putHolder(
            {
              ...holder,
              status: 'ACTIVE',
              message: report.message,
              apiServerHost: report.apiServerHost,
              kubernetesVersion: report.kubernetesVersion,
            },
            now(),
          );
          this.#holdOnSession(session.sessionId, report.account);
          await say(`active on agent ${session.agentId} (${role(holder.caching)})`);
          break;
        case 'FAILED':
          // It holds the account but cannot serve it: no operations, no caching; another agent caches.
          await store.dynamicAccounts.putHolder(
            { ...holder, status: 'FAILED', caching: false, message: report.message },
            now(),
          );
          this.#forgetOnSession(session.agentId, report.account);
          await say(`agent ${session.agentId} failed to add the account: ${report.message}`);
          break;
        case 'REFUSED':
          await store.dynamicAccounts.dropHolder(report.account, session.agentId);
          this.#forgetOnSession(session.agentId, report.account);
          this.#refused.add(`${session.sessionId}\n${report.account}`);
          await say(`agent ${session.agentId} refused the account: ${report.message}`);
          break;
        default:
          return true;
      }
      await this.#place({});
      return true;
    });
  }

  // --- the pass ---

  #mayHold(
    session: SessionView,
    credentials: StoredCredentials,
    registration: Registration | undefined,
    staticOwners: ReadonlyMap<string, string>,
  ): boolean {
    if (!session.dynamicAccounts.enabled) return false;
    // Rule 2: while any agent defines the name in its own config, cloudctl's definition goes nowhere.
    if (staticOwners.has(credentials.name) || this.#ownsStatic(session, credentials.name)) return false;
    if (this.#refused.has(`${session.sessionId}\n${credentials.name}`)) return false;
    if (registration !== undefined && !isActivated(registration.state)) return false;
    return this.#activatedFor(session, registration) || this.#subscribes(session, credentials);
  }

  /** Static account name → the agent whose config defines it, as recorded (every replica's agents). */
  async #staticOwners(): Promise<Map<string, string>> {
    const owned = await this.#deps.store.agents.accounts();
    return new Map(owned.map((account) => [account.name, account.agentId]));
  }

  #ownsStatic(session: SessionView, account: string): boolean {
    return session.accounts.some((a) => a.name === account && a.source === 'static-agent-config');
  }

  #activatedFor(session: SessionView, registration: Registration | undefined): boolean {
    if (registration === undefined || !isActivated(registration.state)) return false;
    return registration.zoneId === null || registration.zoneId === session.zoneId;
  }

  #subscribes(session: SessionView, credentials: StoredCredentials): boolean {
    const entry = this.#subscriptions.get(session.sessionId);
    return entry?.subscription.matches(credentials) ?? false;
  }

  /** A pass: read what is, then for each account plan, write and queue; then send the queues. */
  async #place(trigger: Trigger): Promise<void> {
    if (this.#closed) return;
    const view = await this.#read();
    this.#reportConflicts(view.defined, view.staticOwners);
    const outboxes = new Outboxes();
    const definedNames = new Set(view.defined.map((c) => c.name));
    // Accounts no longer defined in cloudctl: no agent keeps them, no registration stays.
    for (const [account, holders] of view.holdersOf) {
      if (definedNames.has(account)) continue;
      for (const holder of holders) {
        if (!view.elsewhere.has(holder.sessionId)) await this.#release(holder, view.sessions, outboxes.of);
      }
    }
    for (const name of view.registrations.keys()) {
      if (!definedNames.has(name)) await this.#deps.store.dynamicAccounts.forget(name);
    }
    for (const credentials of view.defined) {
      const plan = this.#plan(credentials, view, trigger);
      const notes = await this.#write(credentials, plan, view.sessions, outboxes.of);
      const owner = view.staticOwners.get(credentials.name);
      if (owner !== undefined && plan.released.some((h) => h.caching))
        notes.push(await this.#handCacheTo(owner, credentials.name, view.sessions, outboxes.of));
      await this.#recordState(credentials, plan, view, notes);
    }
    this.#send(outboxes);
  }

  /**
   * A static owner took over a name another agent cached as cloudctl's account: what that agent
   * cached is evicted (its namespaces, its cluster perhaps) and the owner lists the account afresh, so
   * the cache holds the owner's objects only. The directives go after the released agent's
   * delete_accounts in this pass (#send's order). An owner connected to another replica lists it at
   * its next start there; until then the account's cache is empty rather than wrong.
   */
  async #handCacheTo(
    owner: string,
    account: string,
    sessions: readonly AgentSession[],
    outbox: (session: AgentSession) => Outbox,
  ): Promise<string> {
    const evicted = await this.#deps.store.cache.forgetAccounts([account]);
    const session = sessions.find((s) => s.agentId === owner);
    if (session !== undefined)
      outbox(session).directives.push(directive(account, false), directive(account, true));
    this.#log.info({ account, owner, evicted }, "cache handed to the account's static owner");
    return `the cache of the other agents' copy was evicted (${evicted} objects) and agent ${owner} lists the account again`;
  }

  /** What a pass starts from: this replica's sessions, the definitions, registrations and holders. */
  async #read(): Promise<PlacementView> {
    const { registry, store } = this.#deps;
    const sessions = registry.newestSessions();
    const defined = await store.credentials.list();
    const registrations = new Map((await store.dynamicAccounts.registrations()).map((r) => [r.name, r]));
    const holdersOf = new Map<string, Holder[]>();
    for (const holder of await store.dynamicAccounts.holders()) {
      holdersOf.set(holder.account, [...(holdersOf.get(holder.account) ?? []), holder]);
    }
    const elsewhere = (await this.#deps.sessionsElsewhere?.()) ?? new Set<string>();
    const staticOwners = await this.#staticOwners();
    return { sessions, defined, registrations, holdersOf, elsewhere, staticOwners };
  }

  /** Who should hold one account after this pass, and who caches it; nothing written yet. */
  #plan(credentials: StoredCredentials, view: PlacementView, trigger: Trigger): AccountPlan {
    const registration = view.registrations.get(credentials.name);
    const all = view.holdersOf.get(credentials.name) ?? [];
    const foreign = all.filter((h) => view.elsewhere.has(h.sessionId));
    const current = all.filter((h) => !view.elsewhere.has(h.sessionId));
    const eligible = view.sessions.filter(
      (s) =>
        this.#mayHold(s, credentials, registration, view.staticOwners) &&
        !foreign.some((h) => h.agentId === s.agentId),
    );
    const kept: Holder[] = [];
    const released: Holder[] = [];
    for (const holder of current) {
      const session = eligible.find((s) => s.agentId === holder.agentId);
      if (session !== undefined && session.sessionId === holder.sessionId) kept.push(holder);
      else released.push(holder);
    }
    const added: Holder[] = [];
    for (const session of eligible) {
      if (kept.some((h) => h.agentId === session.agentId)) continue;
      const activated = this.#activatedFor(session, registration);
      const subscribed =
        trigger.scan === session.sessionId ||
        (trigger.intercept === credentials.name && session.dynamicAccounts.interceptorEnabled);
      if (!activated && !subscribed) continue;
      added.push({
        account: credentials.name,
        agentId: session.agentId,
        sessionId: session.sessionId,
        caching: false,
        status: 'SENT',
        message: '',
      });
    }
    const moved = chooseCacher(kept, added, foreign);
    return { registration, eligible, foreign, kept, released, added, moved };
  }

  /** Writes the plan's holders and queues what each agent is told; the notes say what was done. */
  async #write(
    credentials: StoredCredentials,
    plan: AccountPlan,
    sessions: readonly AgentSession[],
    outbox: (session: AgentSession) => Outbox,
  ): Promise<string[]> {
    const { store, now } = this.#deps;
    for (const holder of plan.released) await this.#release(holder, sessions, outbox);
    const notes: string[] = [];
    const definition = JSON.stringify(definitionFor(credentials, plan.registration));
    const send = (session: AgentSession, holder: Holder) => {
      this.#sent.set(`${session.sessionId}\n${credentials.name}`, definition);
      outbox(session).adds.push({
        name: credentials.name,
        definition: Buffer.from(definition),
        cache: directive(credentials.name, holder.caching),
      });
    };
    const sessionOf = (holder: Holder) => plan.eligible.find((s) => s.sessionId === holder.sessionId);
    for (const holder of plan.added) {
      const session = sessionOf(holder);
      if (session === undefined) continue;
      await store.dynamicAccounts.putHolder(holder, now());
      send(session, holder);
      this.#holdOnSession(session.sessionId, credentials.name, credentials);
      notes.push(`sent to agent ${holder.agentId} for ${role(holder.caching)}`);
    }
    for (const holder of plan.kept) {
      const session = sessionOf(holder);
      const sent = this.#sent.get(`${holder.sessionId}\n${credentials.name}`);
      // Unknown for an account a reconnecting agent listed: it has what it had; nothing to compare.
      if (session === undefined || sent === undefined || sent === definition) continue;
      holder.status = 'SENT';
      holder.message = '';
      await store.dynamicAccounts.putHolder(holder, now());
      send(session, holder);
      notes.push(`changed definition sent to agent ${holder.agentId}`);
    }
    for (const holder of plan.moved) {
      const session = sessionOf(holder);
      if (session === undefined) continue;
      await store.dynamicAccounts.putHolder(holder, now());
      outbox(session).directives.push(directive(credentials.name, holder.caching));
      if (holder.caching) notes.push(`agent ${holder.agentId} caches the account now`);
    }
    return notes;
  }

  /** An activated registration's state and message follow from who holds the account now. */
  async #recordState(
    credentials: StoredCredentials,
    plan: AccountPlan,
    view: PlacementView,
    notes: string[],
  ): Promise<void> {
    const { registration } = plan;
    if (registration === undefined || !isActivated(registration.state)) return;
    // Rule 2, whatever the zones: the owner serves the name with its own definition.
    const owner = view.staticOwners.get(credentials.name);
    if (owner !== undefined) {
      notes.unshift(
        `agent ${owner} keeps its own static account ${credentials.name}: the agent's definition wins over cloudctl's`,
      );
    }
    const refused = view.sessions.some((s) => this.#refused.has(`${s.sessionId}\n${credentials.name}`));
    const holders = [...plan.kept, ...plan.added];
    const state = this.#stateOf([...holders, ...plan.foreign], owner !== undefined || refused);
    const message = notes.length > 0 ? notes.join('; ') : undefined;
    if (
      state !== registration.state ||
      (message !== undefined && message !== registration.lastAssignmentMsg)
    ) {
      await this.#deps.store.dynamicAccounts.setState(
        credentials.name,
        transition(credentials.name, registration.state, state),
        message,
        this.#deps.now(),
      );
    }
  }

  /** Each session's queue goes out: deletes first, adds in batches of its scan size, directives. */
  #send(outboxes: Outboxes): void {
    for (const { session, adds, deletes, directives } of outboxes.all()) {
      const log = this.#log.child({ agentId: session.agentId, sessionId: session.sessionId });
      if (deletes.length > 0) {
        session.send({ deleteAccounts: { names: deletes } });
        log.info({ accounts: deletes }, 'delete_accounts sent');
      }
      const batch =
        session.dynamicAccounts.scanBatchSize > 0 ? session.dynamicAccounts.scanBatchSize : adds.length;
      for (let start = 0; start < adds.length; start += batch) {
        const accounts = adds.slice(start, start + batch);
        session.send({ addAccounts: { accounts } });
        log.info(
          { accounts: accounts.map((a) => a.name), caching: accounts.map((a) => a.cache?.enabled === true) },
          'add_accounts sent',
        );
      }
      if (directives.length > 0) {
        session.send({ cacheDirectives: { directives } });
        log.info({ caching: directives.map((d) => `${d.account}=${d.enabled}`) }, 'cache_directives sent');
      }
    }
  }

  /** The state an activated registration is in, from who holds the account now. */
  #stateOf(holders: readonly Holder[], turnedDown: boolean): AccountState {
    if (holders.some((h) => h.status === 'ACTIVE')) return 'ACTIVE';
    if (holders.some((h) => h.status === 'SENT')) return 'ACTIVATING';
    // Failed, refused, or kept from agents by their own static account, wherever it could go.
    if (holders.some((h) => h.status === 'FAILED') || turnedDown) return 'FAILED';
    return 'ORPHANED';
  }

  /** The agent no longer holds the account: tell its session, if it is still there. */
  async #release(
    holder: Holder,
    sessions: readonly AgentSession[],
    outbox: (session: AgentSession) => Outbox,
  ): Promise<void> {
    await this.#deps.store.dynamicAccounts.dropHolder(holder.account, holder.agentId);
    this.#sent.delete(`${holder.sessionId}\n${holder.account}`);
    const session = sessions.find((s) => s.sessionId === holder.sessionId);
    if (session === undefined) return;
    outbox(session).deletes.push(holder.account);
    this.#forgetOnSession(holder.agentId, holder.account);
  }

  #forgetKey(key: string): void {
    this.#refused.delete(key);
    this.#sent.delete(key);
  }

  /** Operations for the account may go to this session (see AgentRegistry.sessionFor). */
  #holdOnSession(sessionId: string, account: string, credentials?: StoredCredentials): void {
    const session = this.#deps.registry.newestSessions().find((s) => s.sessionId === sessionId);
    if (session === undefined || session.accounts.some((a) => a.name === account)) return;
    const held: SessionAccount = {
      name: account,
      permissions: {
        read: [...(credentials?.permissions.read ?? [])],
        write: [...(credentials?.permissions.write ?? [])],
      },
      apiServerHost: '',
      kubernetesVersion: '',
      source: 'cloudctl',
    };
    this.#deps.registry.setAccounts(sessionId, [...session.accounts, held]);
  }

  #forgetOnSession(agentId: string, account: string): void {
    const session = this.#deps.registry.newestSessionOf(agentId);
    if (session === undefined) return;
    this.#deps.registry.setAccounts(
      session.sessionId,
      session.accounts.filter((a) => !(a.name === account && a.source === 'cloudctl')),
    );
  }
}
