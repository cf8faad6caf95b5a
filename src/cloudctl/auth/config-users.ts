// Users from cloudctl's config file: each token is known by its SHA-256 only, so the config file
// leaks no credential, and lookups compare hashes, never tokens.
import type { UserEntry } from '../config/index.ts';
import { hashToken } from './agent-authenticator.ts';
import type { TokenIdentity, TokenSource } from './token-source.ts';

export function configUsers(users: readonly UserEntry[]): TokenSource {
  const byHash = new Map<string, TokenIdentity>(
    users.map((user) => [user.tokenHash, { name: user.name, roles: user.roles }]),
  );
  return { identify: async (token) => byHash.get(hashToken(token)) };
}
