// The OAuth record keeper: client credentials and the access tokens issued to them. Tokens are
// looked up by hash joined with their client, so revoking a client, or rotating its secret, ends its
// tokens at once; an agent's credential is looked up by its secret's hash or a token's.
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { type ClientType, clientTypeSchema } from './client-type.ts';
import type { OAuthClientsTable, OAuthTables } from './oauth-tables.ts';

export interface StoredClient {
  clientId: string;
  name: string;
  type: ClientType;
  /** One or more. */
  roles: string[];
  /** The agent a `remoteNetworkAgent` credential connects as; null for `deployments`. */
  agentId: string | null;
  secretHash: string;
  createdBy: string;
  createdAt: Date;
  rotatedAt: Date | null;
  revokedAt: Date | null;
}

export interface TokenOwner {
  clientId: string;
  name: string;
  type: ClientType;
  roles: string[];
}

/** A usable remote network agent credential, found by its secret's hash or an access token's. */
export interface AgentClient {
  clientId: string;
  agentId: string;
}

/** The answer of a lookup by hash for an agent: the credential, or the type it has instead. */
export type AgentClientLookup = AgentClient | { clientId: string; type: 'deployments' } | undefined;

type ClientRow = Omit<OAuthClientsTable, 'roles' | 'created_at' | 'rotated_at' | 'revoked_at'> & {
  roles: unknown;
  created_at: Date;
  rotated_at: Date | null;
  revoked_at: Date | null;
};

const rolesSchema = z.array(z.string()).min(1);

export class OAuthStore {
  readonly #db: Kysely<OAuthTables>;

  constructor(db: Kysely<OAuthTables>) {
    this.#db = db;
  }

  async createClient(client: Omit<StoredClient, 'revokedAt' | 'rotatedAt'>): Promise<void> {
    const [first] = client.roles;
    if (first === undefined) throw new Error(`client ${client.clientId} has no role`);
    await this.#db
      .insertInto('oauth_clients')
      .values({
        client_id: client.clientId,
        name: client.name,
        type: client.type,
        role: first,
        roles: JSON.stringify(client.roles),
        agent_id: client.agentId,
        secret_hash: client.secretHash,
        created_by: client.createdBy,
        created_at: client.createdAt,
        rotated_at: null,
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

  /**
   * Replaces the secret of a client that is not revoked and drops the tokens the old one obtained:
   * the old secret stops working with this transaction. Undefined when there is no such client; the
   * client unchanged (revokedAt set) when it is revoked.
   */
  async rotateClient(clientId: string, secretHash: string, at: Date): Promise<StoredClient | undefined> {
    return this.#db.transaction().execute(async (tx) => {
      const rotated = await tx
        .updateTable('oauth_clients')
        .set({ secret_hash: secretHash, rotated_at: at })
        .where('client_id', '=', clientId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (rotated.numUpdatedRows > 0n)
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
      .select(['oauth_clients.client_id', 'oauth_clients.name', 'oauth_clients.type', 'oauth_clients.roles'])
      .where('oauth_tokens.token_hash', '=', tokenHash)
      .where('oauth_tokens.expires_at', '>', now)
      .where('oauth_clients.revoked_at', 'is', null)
      .executeTakeFirst();
    return row === undefined
      ? undefined
      : {
          clientId: row.client_id,
          name: row.name,
          type: clientTypeSchema.parse(row.type),
          roles: rolesSchema.parse(row.roles),
        };
  }

  /**
   * The usable credential an agent's bearer token proves: a client's secret itself, or an unexpired
   * access token issued to it. A `deployments` client is answered as such, so the refusal can say why.
   */
  async agentClient(tokenHash: string, now: Date): Promise<AgentClientLookup> {
    const bySecret = await this.#db
      .selectFrom('oauth_clients')
      .select(['client_id', 'type', 'agent_id'])
      .where('secret_hash', '=', tokenHash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    const row =
      bySecret ??
      (await this.#db
        .selectFrom('oauth_tokens')
        .innerJoin('oauth_clients', 'oauth_clients.client_id', 'oauth_tokens.client_id')
        .select(['oauth_clients.client_id', 'oauth_clients.type', 'oauth_clients.agent_id'])
        .where('oauth_tokens.token_hash', '=', tokenHash)
        .where('oauth_tokens.expires_at', '>', now)
        .where('oauth_clients.revoked_at', 'is', null)
        .executeTakeFirst());
    if (row === undefined) return undefined;
    if (row.type !== 'remoteNetworkAgent' || row.agent_id === null)
      return { clientId: row.client_id, type: 'deployments' };
    return { clientId: row.client_id, agentId: row.agent_id };
  }
}

function clientOf(row: ClientRow): StoredClient {
  return {
    clientId: row.client_id,
    name: row.name,
    type: clientTypeSchema.parse(row.type),
    roles: rolesSchema.parse(row.roles),
    agentId: row.agent_id,
    secretHash: row.secret_hash,
    createdBy: row.created_by,
    createdAt: row.created_at,
    rotatedAt: row.rotated_at,
    revokedAt: row.revoked_at,
  };
}
