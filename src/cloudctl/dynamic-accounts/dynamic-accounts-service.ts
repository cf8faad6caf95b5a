// The dynamic accounts interface's rules (the spec's rules 1-5) over the account directory, the
// registrations and the placement of accounts on agents. Every change needs WRITE on the account (or
// an admin role); reads need READ. A request naming several accounts is checked whole before anything
// changes, so a 400 for one account leaves the others as they were.
import type { AccountGuard, KnownAccount } from '../accounts/index.ts';
import type { Principal } from '../auth/index.ts';
import type { CredentialStore, StoredCredentials } from '../credentials/index.ts';
import { HttpError } from '../http/index.ts';
import type { AgentStore, SessionFinder } from '../sessions/index.ts';
import type { AccountPlacement } from './account-placement.ts';
import { type AccountRecord, definitionConflict, type MigrationEntry } from './account-record.ts';
import { ACTIVATABLE, type AccountState, transition } from './account-state.ts';
import type { DynamicAccountStore, Holder, Registration } from './dynamic-account-store.ts';

export interface DynamicAccountsDeps {
  guard: AccountGuard;
  store: { credentials: CredentialStore; agents: AgentStore; dynamicAccounts: DynamicAccountStore };
  sessions: Pick<SessionFinder, 'isConnected' | 'dynamicAgentIn'>;
  placement: AccountPlacement;
  now: () => Date;
}

export interface Page {
  items: AccountRecord[];
  page: number;
  limit: number;
  total: number;
}

function invalid(message: string): HttpError {
  return new HttpError('REQUEST_INVALID', message);
}

export class DynamicAccountsApi {
  readonly #deps: DynamicAccountsDeps;

  constructor(deps: DynamicAccountsDeps) {
    this.#deps = deps;
  }

  /** Every account the user may read, static and dynamic, by name (code-unit order, as stored). */
  async list(user: Principal, page: number, limit: number): Promise<Page> {
    const visible = (await this.#deps.guard.visible(user, 'READ')).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    const slice = visible.slice((page - 1) * limit, page * limit);
    const items = await Promise.all(slice.map((account) => this.#record(account)));
    return { items, page, limit, total: visible.length };
  }

  async get(user: Principal, name: string): Promise<AccountRecord> {
    return this.#record(await this.#deps.guard.require(user, name, 'READ'));
  }

  /** POST: registers accounts defined in cloudctl for migration; a new registration is INACTIVE. */
  async register(user: Principal, entries: readonly MigrationEntry[]): Promise<AccountRecord[]> {
    for (const entry of entries) {
      // The spec makes `state` a PATCH field. A POST that asks for ACTIVE would otherwise register
      // the account INACTIVE while the caller believes it is live; INACTIVE is what POST does anyway
      // (and what a record copied from GET says), so only that value is accepted.
      if (entry.state !== undefined && entry.state !== 'INACTIVE') {
        throw invalid(
          `account ${entry.name}: state ${JSON.stringify(entry.state)} cannot be set by POST, which registers accounts INACTIVE; PATCH /vendor/accounts with state ACTIVE activates them`,
        );
      }
      await this.#definedInCloudctl(user, entry.name);
    }
    const { placement, store, now } = this.#deps;
    await placement.change(async () => {
      for (const entry of entries) {
        const before = await store.dynamicAccounts.registration(entry.name);
        // A new entry replaces what the earlier POST said; what it leaves out stays.
        await store.dynamicAccounts.register(
          {
            name: entry.name,
            zoneId: entry.zoneId ?? before?.zoneId ?? null,
            orchConfigFile: entry.orchConfigFile ?? before?.orchConfigFile ?? null,
          },
          now(),
        );
      }
    });
    return Promise.all(entries.map((entry) => this.get(user, entry.name)));
  }

  /** PATCH with state ACTIVE: activates registered INACTIVE or FAILED accounts (rules 3 and 4). */
  async activate(user: Principal, entries: readonly MigrationEntry[]): Promise<AccountRecord[]> {
    const { placement, store, now } = this.#deps;
    const checked: Array<{ entry: MigrationEntry; registration: Registration; zoneId: string | null }> = [];
    for (const entry of entries) {
      if (entry.state !== 'ACTIVE') {
        throw invalid(
          `account ${entry.name}: state must be ACTIVE (found ${entry.state === undefined ? 'none' : JSON.stringify(entry.state)}); DELETE /vendor/accounts/${entry.name} deactivates`,
        );
      }
      await this.#definedInCloudctl(user, entry.name);
      const registration = await store.dynamicAccounts.registration(entry.name);
      if (registration === undefined) {
        throw invalid(
          `account ${entry.name} is not registered for migration: POST /vendor/accounts registers it first`,
        );
      }
      if (!ACTIVATABLE.includes(registration.state)) {
        throw invalid(
          `account ${entry.name} is ${registration.state}: only ${ACTIVATABLE.join(' or ')} accounts can be activated`,
        );
      }
      const zoneId = entry.zoneId ?? registration.zoneId;
      // Rule 3: a connected agent (on any replica) takes dynamic accounts, in the zone when one is given.
      if (!(await this.#deps.sessions.dynamicAgentIn(zoneId))) {
        throw invalid(
          zoneId === null
            ? `account ${entry.name} cannot be activated: no connected agent takes dynamic accounts`
            : `account ${entry.name} cannot be activated: no connected agent of zone ${zoneId} takes dynamic accounts`,
        );
      }
      checked.push({ entry, registration, zoneId });
    }
    await placement.change(async () => {
      for (const { entry, registration, zoneId } of checked) {
        await store.dynamicAccounts.register(
          {
            name: entry.name,
            zoneId,
            orchConfigFile: entry.orchConfigFile ?? registration.orchConfigFile,
          },
          now(),
        );
        await placement.retry(entry.name);
        await store.dynamicAccounts.setState(
          entry.name,
          transition(entry.name, registration.state, 'ACTIVATING'),
          '',
          now(),
        );
      }
    });
    return Promise.all(checked.map(({ entry }) => this.get(user, entry.name)));
  }

  /** DELETE: agents drop the account; it stays registered, INACTIVE. Static accounts are never removed. */
  async deactivate(user: Principal, name: string): Promise<AccountRecord> {
    await this.#definedInCloudctl(user, name);
    const { placement, store, now } = this.#deps;
    await placement.change(async () => {
      const registration = await store.dynamicAccounts.registration(name);
      if (registration === undefined) {
        await store.dynamicAccounts.register({ name, zoneId: null, orchConfigFile: null }, now());
      }
      await store.dynamicAccounts.setState(
        name,
        transition(name, registration?.state ?? 'INACTIVE', 'INACTIVE'),
        `removed from agents by ${user.name}`,
        now(),
      );
    });
    return this.get(user, name);
  }

  /** Rules 1 and 2: the name is an account defined in cloudctl, and the user may change it. */
  async #definedInCloudctl(user: Principal, name: string): Promise<StoredCredentials> {
    const credentials = await this.#deps.store.credentials.get(name);
    if (credentials === undefined) {
      const known = await this.#deps.store.agents.account(name);
      throw invalid(
        known === undefined
          ? `account ${name} is not defined in cloudctl (POST /credentials defines it)`
          : `account ${name} is not defined in cloudctl: it is a static account of agent ${known.agentId}'s config file, which cloudctl never moves or removes`,
      );
    }
    await this.#deps.guard.require(user, name, 'WRITE');
    return credentials;
  }

  async #record(account: KnownAccount): Promise<AccountRecord> {
    const { store, sessions } = this.#deps;
    const [credentials, registration, holders] = await Promise.all([
      store.credentials.get(account.name),
      store.dynamicAccounts.registration(account.name),
      store.dynamicAccounts.holders(account.name),
    ]);
    // Confirmed holders only, as the spec says; those still SENT are shown apart.
    const entries = (status: Holder['status']) =>
      holders.filter((h) => h.status === status).map((h) => ({ agentId: h.agentId, caching: h.caching }));
    const base = {
      name: account.name,
      type: 'orchestrator',
      zoneId: registration?.zoneId ?? null,
      lastAssignmentMsg:
        registration === undefined || registration.lastAssignmentMsg === ''
          ? null
          : registration.lastAssignmentMsg,
    };
    if (account.source === 'static-agent-config') {
      const stored = await store.agents.account(account.name);
      const connected = stored !== undefined && (await sessions.isConnected(stored.agentId));
      const state = staticState(stored?.status, connected);
      // `agents` are those confirmed to handle the account: an agent that reports it FAILED does
      // not, as a FAILED holder of a cloudctl account is not listed either. Its words say why.
      const failed = state === 'FAILED' && stored !== undefined;
      return {
        ...base,
        lastAssignmentMsg: failed
          ? `agent ${stored.agentId} cannot serve its static account: ${stored.statusMessage}`
          : base.lastAssignmentMsg,
        source: 'static-agent-config',
        config: {
          name: account.name,
          permissions: { READ: [...account.permissions.read], WRITE: [...account.permissions.write] },
        },
        agents: stored === undefined || failed ? [] : [{ agentId: stored.agentId, caching: connected }],
        pendingAgents: [],
        state,
        conflict:
          credentials !== undefined && stored !== undefined
            ? definitionConflict(account.name, stored.agentId)
            : null,
      };
    }
    const config: Record<string, unknown> = { ...(credentials?.definition ?? { name: account.name }) };
    if (registration?.orchConfigFile != null) config.orchConfigFile = registration.orchConfigFile;
    return {
      ...base,
      source: 'cloudctl',
      config,
      agents: entries('ACTIVE'),
      pendingAgents: entries('SENT'),
      state: registration?.state ?? derivedState(holders),
      conflict: null,
    };
  }
}

function staticState(reported: string | undefined, connected: boolean): AccountState {
  if (!connected) return 'ORPHANED';
  if (reported === 'ACTIVE' || reported === 'FAILED') return reported;
  return 'ACTIVATING';
}

/** An account only subscriptions placed has no registration: its state is its holders'. */
function derivedState(holders: readonly Holder[]): AccountState {
  if (holders.some((h) => h.status === 'ACTIVE')) return 'ACTIVE';
  if (holders.some((h) => h.status === 'SENT')) return 'ACTIVATING';
  if (holders.length > 0) return 'FAILED';
  return 'INACTIVE';
}
