// The account directory answers from a copy; these tests hold it to being exact after this
// process's writes and to bounding how stale it gets for writes it cannot see.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AccountDirectory, type AccountLookup, agentAccounts } from '../../../src/cloudctl/accounts/index.ts';
import { credentialAccounts } from '../../../src/cloudctl/credentials/index.ts';
import { type CloudctlStores, openStores } from '../../../src/cloudctl/index.ts';
import { ChangeCounter } from '../../../src/cloudctl/store/index.ts';

const NOW = new Date('2026-11-24T00:00:00Z');
const permissions = { read: ['dev'], write: ['dev'] };

let store: CloudctlStores;
let clock: number;

function directoryOver(target: CloudctlStores, maxAgeMs = 60_000): AccountDirectory {
  return new AccountDirectory([agentAccounts(target), credentialAccounts(target.credentials)], {
    changes: target.accountChanges,
    maxAgeMs,
    now: () => clock,
  });
}

async function register(target: CloudctlStores, agentId: string, account: string): Promise<void> {
  await target.agents.register(
    {
      agentId,
      version: '1.0.0',
      zoneId: 'zone-a',
      replicaCount: 1,
      accounts: [{ name: account, permissions, apiServerHost: 'https://k', kubernetesVersion: 'v1.31.0' }],
    },
    NOW,
  );
}

async function define(target: CloudctlStores, name: string, read: string[]): Promise<void> {
  const created = await target.credentials.create(
    { name, type: 'orchestrator', definition: { name }, permissions: { read, write: [] } },
    NOW,
  );
  expect(created).not.toBe('exists');
}

beforeEach(async () => {
  clock = 0;
  store = await openStores({ kind: 'pglite', dataDir: 'memory://' });
});

afterEach(async () => {
  await store.close();
});

describe('AccountDirectory', () => {
  it('sees a registration, a definition, a change and a delete made by this process at once', async () => {
    const directory = directoryOver(store);
    expect(await directory.list()).toEqual([]);

    await register(store, 'agent-1', 'prod');
    expect((await directory.find('prod'))?.agentId).toBe('agent-1');

    await define(store, 'staging', ['dev']);
    expect((await directory.list()).map((account) => account.name)).toEqual(['prod', 'staging']);

    await store.credentials.update(
      { name: 'staging', type: 'orchestrator', definition: {}, permissions: { read: ['ops'], write: [] } },
      NOW,
    );
    expect((await directory.find('staging'))?.permissions.read).toEqual(['ops']);

    await store.credentials.delete('staging', NOW);
    expect(await directory.find('staging')).toBeUndefined();
  });

  it("ranks an agent's definition above cloudctl's for the same name", async () => {
    const directory = directoryOver(store);
    await define(store, 'prod', ['nobody']);
    await register(store, 'agent-1', 'prod');
    const found = await directory.find('prod');
    expect(found?.source).toBe('static-agent-config');
    expect(found?.permissions).toEqual(permissions);
  });

  it('reloads a copy older than maxAgeMs, for writes another process made on the same database', async () => {
    // A counter the store's writes do not bump: the writes below are as unseen as another replica's.
    const directory = new AccountDirectory([agentAccounts(store), credentialAccounts(store.credentials)], {
      changes: new ChangeCounter(),
      maxAgeMs: 1000,
      now: () => clock,
    });
    expect(await directory.find('prod')).toBeUndefined();
    await define(store, 'prod', ['dev']);
    clock = 999;
    expect(await directory.find('prod')).toBeUndefined();
    clock = 1000;
    expect((await directory.find('prod'))?.name).toBe('prod');
  });

  it('shares one load among concurrent readers and loads again after a write made during it', async () => {
    const directory = directoryOver(store);
    await register(store, 'agent-1', 'a');
    const [first, second] = await Promise.all([directory.list(), directory.list()]);
    expect(first).toEqual(second);

    const reading = directory.find('b');
    await register(store, 'agent-1', 'b');
    await reading;
    expect((await directory.find('b'))?.name).toBe('b');
  });

  it('answers a read made after a delete without the account, though a load begun before the delete is still running', async () => {
    const credentials = credentialAccounts(store.credentials);
    let held: Promise<void> | undefined;
    let release = () => {};
    let read = () => {};
    // cloudctl's own definitions, read at once, then held until released: a load caught mid-way.
    const slow: AccountLookup = {
      list: async () => {
        const accounts = await credentials.list();
        read();
        await held;
        return accounts;
      },
    };
    const directory = new AccountDirectory([agentAccounts(store), slow], {
      changes: store.accountChanges,
      maxAgeMs: Number.POSITIVE_INFINITY,
      now: () => clock,
    });
    await define(store, 'gone', ['dev']);
    expect((await directory.find('gone'))?.name).toBe('gone');

    held = new Promise((resolve) => {
      release = resolve;
    });
    const hasRead = new Promise<void>((resolve) => {
      read = resolve;
    });
    await define(store, 'other', ['dev']);
    const before = directory.find('gone');
    // The load this read began has read 'gone', and waits; then the delete commits.
    await hasRead;
    await store.credentials.delete('gone', NOW);
    const after = directory.find('gone');
    release();
    expect((await before)?.name).toBe('gone');
    expect(await after).toBeUndefined();
    expect(await directory.find('gone')).toBeUndefined();
    expect((await directory.find('other'))?.name).toBe('other');
  });
});
