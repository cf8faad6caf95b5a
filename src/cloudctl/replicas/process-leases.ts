// Leases held in this process's memory, for cloudctl on its embedded database. Only one process can
// open that database, so no other replica can ever claim its work: a lease row inserted before every
// task and deleted after it would cost two statements on the deploy's path for nothing
// (bench:ops-latency). The rules are the database leases' own (lease-store.ts), on this process's clock.
import type { LeaseSource, MovableLeases } from './lease-store.ts';

interface Held {
  owner: string;
  expiresAt: number;
}

export class ProcessLeaseStore implements LeaseSource {
  readonly #held = new Map<string, Held>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  leases(kind: string, owner: string, ttlMs: number): MovableLeases {
    const at = (key: string) => `${kind}\0${key}`;
    const hold = (key: string) => this.#held.set(at(key), { owner, expiresAt: this.#now() + ttlMs });
    const ours = (key: string) => this.#held.get(at(key))?.owner === owner;
    return {
      claim: async (key) => {
        const held = this.#held.get(at(key));
        if (held !== undefined && held.owner !== owner && held.expiresAt >= this.#now()) return false;
        hold(key);
        return true;
      },
      renew: async (keys) => {
        const renewed = keys.filter(ours);
        for (const key of renewed) hold(key);
        return renewed;
      },
      take: async (key) => {
        hold(key);
      },
      release: async (key) => {
        if (ours(key)) this.#held.delete(at(key));
      },
    };
  }
}
