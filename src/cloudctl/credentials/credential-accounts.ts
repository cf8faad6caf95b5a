// The accounts defined in cloudctl, as the account directory sees them: name and permissions.
import type { AccountLookup, KnownAccount } from '../accounts/index.ts';
import type { CredentialStore, StoredCredentials } from './credential-store.ts';

function toKnown(credentials: StoredCredentials): KnownAccount {
  return {
    name: credentials.name,
    source: 'cloudctl',
    permissions: credentials.permissions,
    agentId: undefined,
  };
}

export function credentialAccounts(credentials: CredentialStore): AccountLookup {
  return { list: async () => (await credentials.list()).map(toKnown) };
}
