// A placement pass's working parts: what it reads (PlacementView), what it plans for one account
// (AccountPlan, with the choice of the one holder that caches it), and what it tells each session
// at the end (Outboxes).
import type { AccountDefinition } from '../../proto/index.ts';
import type { StoredCredentials } from '../credentials/index.ts';
import type { AgentSession, CacheDirective } from '../sessions/index.ts';
import type { Holder, Registration } from './dynamic-account-store.ts';

export interface Outbox {
  session: AgentSession;
  adds: AccountDefinition[];
  deletes: string[];
  directives: CacheDirective[];
}

/** What each session is told at the end of a pass, gathered while the pass writes. */
export class Outboxes {
  readonly #boxes = new Map<string, Outbox>();

  of = (session: AgentSession): Outbox => {
    let box = this.#boxes.get(session.sessionId);
    if (box === undefined) {
      box = { session, adds: [], deletes: [], directives: [] };
      this.#boxes.set(session.sessionId, box);
    }
    return box;
  };

  all(): IterableIterator<Outbox> {
    return this.#boxes.values();
  }
}

/** What a placement pass starts from. */
export interface PlacementView {
  sessions: AgentSession[];
  defined: StoredCredentials[];
  registrations: Map<string, Registration>;
  holdersOf: Map<string, Holder[]>;
  /** Sessions other live replicas hold: their holders are theirs to place and release. */
  elsewhere: ReadonlySet<string>;
  /** Names agents define in their own config, with the agent: cloudctl's copy goes to nobody. */
  staticOwners: ReadonlyMap<string, string>;
}

/** One account's placement in a pass, before anything is written. */
export interface AccountPlan {
  registration: Registration | undefined;
  /** This replica's sessions that may hold the account. */
  eligible: AgentSession[];
  /** Holders on other replicas' sessions. */
  foreign: Holder[];
  kept: Holder[];
  released: Holder[];
  added: Holder[];
  /** Kept holders whose caching changes. */
  moved: Holder[];
}

/**
 * Exactly one holder that can serve the account caches it; a new one only when none does. Across
 * replicas the cacher with the smallest agent id stays: each replica demotes its own that rank
 * after another's, so two that promoted at once settle on one. Sets `caching` on the holders, and
 * answers the kept ones whose caching changed.
 */
export function chooseCacher(kept: Holder[], added: Holder[], foreign: readonly Holder[]): Holder[] {
  const serving = [...kept, ...added].filter((h) => h.status !== 'FAILED');
  const foreignCacher = foreign
    .filter((h) => h.caching && h.status !== 'FAILED')
    .sort((a, b) => a.agentId.localeCompare(b.agentId))[0];
  const cachers = serving.filter((h) => h.caching);
  const moved: Holder[] = [];
  if (foreignCacher !== undefined) {
    for (const local of cachers.filter((h) => h.agentId.localeCompare(foreignCacher.agentId) > 0)) {
      local.caching = false;
      moved.push(local);
      cachers.splice(cachers.indexOf(local), 1);
    }
  }
  if (cachers.length === 0 && foreignCacher === undefined) {
    const chosen = serving.find((h) => h.status === 'ACTIVE') ?? serving[0];
    if (chosen !== undefined) {
      chosen.caching = true;
      if (kept.includes(chosen)) moved.push(chosen);
    }
  }
  for (const extra of cachers.slice(1)) {
    extra.caching = false;
    moved.push(extra);
  }
  return moved;
}
