// The credentials API's rules over the store and the account directory: who may read and write which
// account, that names are unique across every source, and that accounts from agents' config files
// and accounts declared in cloudctl's own config file are read-only here.
//
// Writing needs WRITE on the account as it is and, for a create or an update, WRITE under the posted
// definition's permissions too: nobody but an admin can write a definition they could not change
// afterwards, so an account is never handed to another team by mistake. An unrestricted definition
// (no READ, no WRITE) may be written by any authenticated user.
import { type AccountDirectory, AccountGuard, type KnownAccount } from '../accounts/index.ts';
import { mayAccess, type Principal } from '../auth/index.ts';
import type { CacheStore, KindResolver } from '../caching/index.ts';
import { HttpError } from '../http/index.ts';
import type { AgentStore } from '../sessions/index.ts';
import { accountNamespaces } from './account-namespaces.ts';
import type { CredentialStore, CredentialsRevision } from './credential-store.ts';
import { type CredentialsDefinition, ORCHESTRATOR, permissionsOf } from './credentials-definition.ts';
import { type AccountView, agentAccountView, credentialsView } from './credentials-view.ts';
import { spinnakerKindMap } from './spinnaker-kind-map.ts';

export interface CredentialsDeps {
  /**
   * The cache tells which custom kinds an account holds and which CRDs define more, for its
   * `spinnakerKindMap`, and which namespaces it sees, for its `namespaces`.
   */
  store: {
    agents: AgentStore;
    credentials: CredentialStore;
    cache: Pick<CacheStore, 'kinds' | 'namespaces'>;
    kinds: Pick<KindResolver, 'definedKinds'>;
  };
  /** Every account, agents' first: the one that answers "does this name exist, and whose is it". */
  directory: AccountDirectory;
  now: () => Date;
  /** Told after each write, so accounts placed on agents follow their definitions (dynamic accounts). */
  changed: (name: string, change: 'created' | 'updated' | 'deleted') => Promise<void>;
}

function definedInConfigFile(name: string, file: string): HttpError {
  return new HttpError(
    'CONFLICT',
    `account ${name} is defined in cloudctl's config file ${file} (accounts); change it there`,
  );
}

function definedByAgent(account: KnownAccount): HttpError {
  return new HttpError(
    'CONFLICT',
    `account ${account.name} is defined in agent ${account.agentId ?? '(unknown)'}'s config file; change it there`,
  );
}

export class Credentials {
  readonly #deps: CredentialsDeps;
  readonly #guard: AccountGuard;

  constructor(deps: CredentialsDeps) {
    this.#deps = deps;
    this.#guard = new AccountGuard(deps.directory);
  }

  /** Every account the user may read, by name; others are left out, never refused. */
  async list(user: Principal, expand: boolean): Promise<AccountView[]> {
    const { store } = this.#deps;
    const visible = await this.#guard.visible(user, 'READ');
    const [defined, registered] = await Promise.all([store.credentials.list(), store.agents.accounts()]);
    const definitions = new Map(defined.map((d) => [d.name, d]));
    const agentAccounts = new Map(registered.map((a) => [a.name, a]));
    const views: AccountView[] = [];
    for (const account of visible) {
      // Gone between the two reads: it is as if the list had been taken a moment later.
      if (account.source === 'cloudctl') {
        const stored = definitions.get(account.name);
        if (stored !== undefined) views.push(credentialsView(stored, expand));
      } else {
        const stored = agentAccounts.get(account.name);
        if (stored !== undefined) views.push(agentAccountView(stored, expand));
      }
    }
    return expand ? this.#expanded(views, definitions) : views;
  }

  /**
   * Expanded views with each account's `spinnakerKindMap` (one read of the cache for them all) and
   * its `namespaces`.
   */
  async #expanded(
    views: AccountView[],
    definitions: ReadonlyMap<string, { definition: Record<string, unknown> }>,
  ): Promise<AccountView[]> {
    const { cache, kinds } = this.#deps.store;
    const names = views.map((v) => v.name);
    const [cached, defined] = await Promise.all([cache.kinds(names), kinds.definedKinds(names)]);
    return Promise.all(
      views.map(async (view) => {
        const definition = definitions.get(view.name)?.definition;
        return {
          ...view,
          namespaces: await accountNamespaces(cache, view.name, definition),
          spinnakerKindMap: spinnakerKindMap(
            cached.filter((k) => k.account === view.name),
            definition,
            defined.filter((k) => k.account === view.name),
          ),
        };
      }),
    );
  }

  /** One account, expanded. */
  async get(user: Principal, name: string): Promise<AccountView> {
    const { store } = this.#deps;
    const account = await this.#guard.require(user, name, 'READ');
    const defined = account.source === 'cloudctl' ? await store.credentials.get(name) : undefined;
    const view =
      account.source === 'cloudctl'
        ? defined && credentialsView(defined, true)
        : await store.agents.account(name).then((s) => s && agentAccountView(s, true));
    if (view === undefined) throw new HttpError('NOT_FOUND', `no account named ${name}`);
    const [expanded] = await this.#expanded([view], new Map(defined ? [[name, defined]] : []));
    return expanded ?? view;
  }

  async create(user: Principal, definition: CredentialsDefinition): Promise<Record<string, unknown>> {
    const { store, directory, now } = this.#deps;
    const existing = await directory.find(definition.name);
    if (existing !== undefined) {
      await this.#requireApiOwned(definition.name);
      throw this.#exists(existing);
    }
    this.#requireWritable(user, definition, 'create');
    const stored = await store.credentials.create(this.#write(definition), now());
    // Created by someone else since the check above: the store's key decided.
    if (stored === 'exists') throw new HttpError('CONFLICT', `account ${definition.name} already exists`);
    await this.#deps.changed(definition.name, 'created');
    return stored.definition;
  }

  async update(user: Principal, definition: CredentialsDefinition): Promise<Record<string, unknown>> {
    const { store, now } = this.#deps;
    const account = await this.#guard.require(user, definition.name, 'WRITE');
    if (account.source === 'static-agent-config') throw definedByAgent(account);
    await this.#requireApiOwned(definition.name);
    this.#requireWritable(user, definition, 'update');
    const stored = await store.credentials.update(this.#write(definition), now());
    if (stored === 'missing') throw new HttpError('NOT_FOUND', `no account named ${definition.name}`);
    await this.#deps.changed(definition.name, 'updated');
    return stored.definition;
  }

  async delete(user: Principal, name: string): Promise<void> {
    const { store, now } = this.#deps;
    const account = await this.#guard.require(user, name, 'WRITE');
    if (account.source === 'static-agent-config') throw definedByAgent(account);
    await this.#requireApiOwned(name);
    if ((await store.credentials.delete(name, now())) === 'missing')
      throw new HttpError('NOT_FOUND', `no account named ${name}`);
    await this.#deps.changed(name, 'deleted');
  }

  /**
   * Every revision, newest first. A deleted account's history stays readable by those who could
   * read it last: its newest revision keeps the permissions of what was deleted.
   */
  async history(user: Principal, name: string): Promise<CredentialsRevision[]> {
    const { store, directory } = this.#deps;
    const [account, revisions] = await Promise.all([directory.find(name), store.credentials.history(name)]);
    if (account !== undefined) {
      await this.#guard.require(user, name, 'READ');
      return revisions;
    }
    const newest = revisions[0];
    if (newest === undefined) throw new HttpError('NOT_FOUND', `no account named ${name}, and no history`);
    if (!mayAccess(user, newest.permissions, 'READ'))
      throw new HttpError('FORBIDDEN', `${user.name} may not read account ${name}`);
    return revisions;
  }

  /**
   * Up to `limit` stored definitions of the type that the user may read, by name, from
   * `startingAt` (inclusive). Unreadable ones are skipped, not counted: a page is full unless the
   * list has ended.
   */
  async listByType(
    user: Principal,
    type: string,
    limit: number,
    startingAt: string | undefined,
  ): Promise<Array<Record<string, unknown>>> {
    const { store } = this.#deps;
    const page: Array<Record<string, unknown>> = [];
    let cursor: { startingAt?: string; after?: string } = startingAt === undefined ? {} : { startingAt };
    for (;;) {
      const batch = await store.credentials.listByType(type, { limit, ...cursor });
      for (const stored of batch) {
        if (mayAccess(user, stored.permissions, 'READ')) page.push(stored.definition);
        if (page.length === limit) return page;
      }
      const last = batch.at(-1);
      if (batch.length < limit || last === undefined) return page;
      cursor = { after: last.name };
    }
  }

  /** Accounts of cloudctl's config file are changed in the file, not over the API. */
  async #requireApiOwned(name: string): Promise<void> {
    const file = (await this.#deps.store.credentials.get(name))?.configFile;
    if (file !== undefined) throw definedInConfigFile(name, file);
  }

  #exists(account: KnownAccount): HttpError {
    return account.source === 'static-agent-config'
      ? new HttpError(
          'CONFLICT',
          `account ${account.name} already exists: it is defined in agent ${account.agentId ?? '(unknown)'}'s config file`,
        )
      : new HttpError('CONFLICT', `account ${account.name} already exists; PUT /credentials changes it`);
  }

  #requireWritable(user: Principal, definition: CredentialsDefinition, verb: 'create' | 'update'): void {
    if (mayAccess(user, permissionsOf(definition), 'WRITE')) return;
    throw new HttpError(
      'FORBIDDEN',
      `${user.name} may not ${verb} account ${definition.name} with these permissions: WRITE would not include any of their roles, so they could not change it afterwards`,
    );
  }

  #write(definition: CredentialsDefinition) {
    return {
      name: definition.name,
      type: ORCHESTRATOR,
      definition: { ...definition },
      permissions: permissionsOf(definition),
    };
  }
}
