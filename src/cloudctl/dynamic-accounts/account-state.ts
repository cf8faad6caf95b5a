// The states of an account registered for migration to agents (POST /vendor/accounts), and the
// moves between them. The spec names INACTIVE, FAILED and ACTIVE; ACTIVATING and ORPHANED come from
// the reference API, where they fit what cloudctl can observe. Its other states do not: TO_MIGRATE and
// TO_DEACTIVATE queue work for a later pass (cloudctl acts at once), and DEACTIVATING, DELETING and
// DELETE_FAILED wait for an acknowledgement of delete_accounts, which the protocol does not have.
//
//            POST                 PATCH state: ACTIVE
//   (none) ───────► INACTIVE ─────────────────────────► ACTIVATING ──(an agent: ACTIVE)──► ACTIVE
//                     ▲  ▲                               │   ▲  ▲                          │  │
//                     │  │        (every holder: FAILED, │   │  └──(an agent connects,     │  │
//                     │  │          or refused: static   │   │      PATCH)──┐              │  │
//                     │  │          account wins)        ▼   │              │              │  │
//                     │  └───────── DELETE ───────────  FAILED ◄──(every holder: FAILED)──┘  │
//                     │                                                     │                 │
//                     └──────────── DELETE ─────────── ORPHANED ◄──(every holder's session ended)
//
// DELETE is allowed from every state and leaves INACTIVE (the registration stays, so PATCH can
// activate the account again); PATCH only from INACTIVE and FAILED (the spec's rule 3).
import { z } from 'zod';
import { CodedError } from '../../lib/coded-error.ts';

export const ACCOUNT_STATES = ['INACTIVE', 'ACTIVATING', 'ACTIVE', 'FAILED', 'ORPHANED'] as const;

export const accountStateSchema = z.enum(ACCOUNT_STATES);

export type AccountState = z.infer<typeof accountStateSchema>;

const ALLOWED: Record<AccountState, readonly AccountState[]> = {
  INACTIVE: ['ACTIVATING'],
  ACTIVATING: ['ACTIVE', 'FAILED', 'ORPHANED', 'INACTIVE'],
  ACTIVE: ['ACTIVATING', 'FAILED', 'ORPHANED', 'INACTIVE'],
  FAILED: ['ACTIVATING', 'ACTIVE', 'ORPHANED', 'INACTIVE'],
  ORPHANED: ['ACTIVATING', 'ACTIVE', 'FAILED', 'INACTIVE'],
};

/** States PATCH state: ACTIVE starts from (the spec's rule 3). */
export const ACTIVATABLE: readonly AccountState[] = ['INACTIVE', 'FAILED'];

/** Whether the account is meant to be on agents: every state but INACTIVE. */
export function isActivated(state: AccountState): boolean {
  return state !== 'INACTIVE';
}

export class IllegalAccountTransition extends CodedError<'ILLEGAL_ACCOUNT_TRANSITION'> {
  constructor(account: string, from: AccountState, to: AccountState) {
    super('ILLEGAL_ACCOUNT_TRANSITION', `account ${account}: no move from ${from} to ${to}`);
  }
}

/** `to`, once checked against the table; staying in a state is always allowed. */
export function transition(account: string, from: AccountState, to: AccountState): AccountState {
  if (from !== to && !ALLOWED[from].includes(to)) throw new IllegalAccountTransition(account, from, to);
  return to;
}
