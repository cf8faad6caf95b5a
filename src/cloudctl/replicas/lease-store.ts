// Leases on work that one process carries at a time: a task, a deployment run, a webhook wait. The
// owner renews what it carries; once a lease expires (its replica died) another replica may claim the
// work and carry it on from what is stored. Expiry uses the database's clock, which all replicas share.
import { type Kysely, sql } from 'kysely';
import type { ReplicaTables } from './replica-tables.ts';

/** Leases of one kind of work, held by one owner. */
export interface Leases {
  /** Takes the lease if it is free, expired or already ours; false when a live owner holds it. */
  claim(key: string): Promise<boolean>;
  /** Extends the leases still ours among `keys`; answers those. */
  renew(keys: readonly string[]): Promise<string[]>;
  release(key: string): Promise<void>;
}

/** Leases of work a client may move from one replica to another (a task restarted elsewhere). */
export interface MovableLeases extends Leases {
  /** Takes the lease whoever holds it; the former owner's next renewal finds it gone. */
  take(key: string): Promise<void>;
}

/**
 * Where the leases of each kind of work are kept: the database, shared by replicas (LeaseStore), or
 * this process, the only one on an embedded database (process-leases.ts).
 */
export interface LeaseSource {
  /** The leases of `kind` as `owner` holds them, each lasting `ttlMs` from its last claim or renewal. */
  leases(kind: string, owner: string, ttlMs: number): MovableLeases;
}

export class LeaseStore implements LeaseSource {
  readonly #db: Kysely<ReplicaTables>;

  constructor(db: Kysely<ReplicaTables>) {
    this.#db = db;
  }

  /** The leases of `kind` as `owner` holds them, each lasting `ttlMs` from its last claim or renewal. */
  leases(kind: string, owner: string, ttlMs: number): MovableLeases {
    const expiry = sql<Date>`now() + make_interval(secs => ${ttlMs / 1000})`;
    return {
      claim: async (key) => {
        const row = await this.#db
          .insertInto('leases')
          .values({ kind, key, owner, expires_at: expiry })
          .onConflict((oc) =>
            oc
              .columns(['kind', 'key'])
              .doUpdateSet({ owner, expires_at: expiry })
              .where((eb) =>
                eb.or([eb('leases.owner', '=', owner), eb('leases.expires_at', '<', sql<Date>`now()`)]),
              ),
          )
          .returning('key')
          .executeTakeFirst();
        return row !== undefined;
      },
      renew: async (keys) => {
        if (keys.length === 0) return [];
        const rows = await this.#db
          .updateTable('leases')
          .set({ expires_at: expiry })
          .where('kind', '=', kind)
          .where('owner', '=', owner)
          .where('key', 'in', keys)
          .returning('key')
          .execute();
        return rows.map((row) => row.key);
      },
      take: async (key) => {
        await this.#db
          .insertInto('leases')
          .values({ kind, key, owner, expires_at: expiry })
          .onConflict((oc) => oc.columns(['kind', 'key']).doUpdateSet({ owner, expires_at: expiry }))
          .execute();
      },
      release: async (key) => {
        await this.#db
          .deleteFrom('leases')
          .where('kind', '=', kind)
          .where('key', '=', key)
          .where('owner', '=', owner)
          .execute();
      },
    };
  }
}
