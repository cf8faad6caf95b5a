// The OAuth record keeper: client credentials and the access tokens issued to them. Tokens are
// looked up by hash joined with their client, so revoking a client ends its tokens at once.
import type { Kysely } from 'kysely';
import type { OAuthTables } from './oauth-tables.ts';

export interface StoredClient {
  clientId: string;
  name: string;
  role: string;
  secretHash: string;
  createdBy: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface TokenOwner {
  clientId: string;
  name: string;
  role: string;
}

export class OAuthStore {
  readonly #db: Kysely<OAuthTables>;

  constructor(db: Kysely<OAuthTables>) {
    this.#db = db;
  }

  async createClient(client: Omit<StoredClient, 'revokedAt'>): Promise<void> {
    await this.#db
      .insertInto('oauth_clients')
      .values({
        client_id: client.clientId,
        name: client.name,
        role: client.role,
        secret_hash: client.secretHash,
        created_by: client.createdBy,
        created_at: client.createdAt,
        revoked_at: null,
      })
      .execute();
  }

  async listClients(): Promise<StoredClient[]> {
    const rows = await this.#db.selectFrom('oauth_clients').selectAll().orderBy('created_at').execute();
    return rows.map(clientOf);
  }

  async client(clientId: string): Promise<StoredClient | undefined> {
    const row = await this.#db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return row === undefined ? undefined : clientOf(row);
  }

  /** Marks the client revoked (once: a second revoke keeps the first time) and drops its tokens. */
  async revokeClient(clientId: string, at: Date): Promise<StoredClient | undefined> {
    return this.#db.transaction().execute(async (tx) => {
      await tx
        .updateTable('oauth_clients')
        .set({ revoked_at: at })
        .where('client_id', '=', clientId)
        .where('revoked_at', 'is', null)
        .execute();
      await tx.deleteFrom('oauth_tokens').where('client_id', '=', clientId).execute();
      const row = await tx
        .selectFrom('oauth_clients')
        .selectAll()
        .where('client_id', '=', clientId)
        .executeTakeFirst();
      return row === undefined ? undefined : clientOf(row);
    });
  }

  /** Stores a new token and forgets the client's expired ones, so the table stays small. */
  async addToken(tokenHash: string, clientId: string, issuedAt: Date, expiresAt: Date): Promise<void> {
    await this.#db.transaction().execute(async (tx) => {
      await tx
        .deleteFrom('oauth_tokens')
        .where('client_id', '=', clientId)
        .where('expires_at', '<=', issuedAt)
        .execute();
      await tx
        .insertInto('oauth_tokens')
        .values({ token_hash: tokenHash, client_id: clientId, issued_at: issuedAt, expires_at: expiresAt })
        .execute();
    });
  }

  /** The client a token was issued to, if the token is unexpired and the client not revoked. */
  async tokenOwner(tokenHash: string, now: Date): Promise<TokenOwner | undefined> {
    const row = await this.#db
      .selectFrom('oauth_tokens')
      .innerJoin('oauth_clients', 'oauth_clients.client_id', 'oauth_tokens.client_id')
      .select(['oauth_clients.client_id', 'oauth_clients.name', 'oauth_clients.role'])
      .where('oauth_tokens.token_hash', '=', tokenHash)
      .where('oauth_tokens.expires_at', '>', now)
      .where('oauth_clients.revoked_at', 'is', null)
      .executeTakeFirst();
    return row === undefined ? undefined : { clientId: row.client_id, name: row.name, role: row.role };
  }
}

function clientOf(row: {
  client_id: string;
  name: string;
  role: string;
  secret_hash: string;
  created_by: string;
  created_at: Date;
  revoked_at: Date | null;
}): StoredClient {
  return {
    clientId: row.client_id,
    name: row.name,
    role: row.role,
    secretHash: row.secret_hash,
    createdBy: row.created_by,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}
