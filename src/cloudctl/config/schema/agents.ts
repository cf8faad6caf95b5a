// `agents[]`: the agents allowed to connect, each proven by a token, a client certificate, or both.
import { z } from 'zod';
import { uniqueEntries } from '../../../lib/unique-entries.ts';
import { tokenHashSchema } from './token-hash.ts';

/** An agent's id, as its hello carries it; also what a remote network agent credential is bound to. */
export const agentIdSchema = z.string().min(1);

export const agentSchema = z
  .strictObject({
    id: agentIdSchema.describe('agent id: the hello must carry it; a client certificate must have it as CN'),
    tokenHash: tokenHashSchema()
      .optional()
      .describe('SHA-256 of the bearer token the agent sends; absent: client certificate only'),
  })
  .describe('an agent allowed to connect');

export type AgentEntry = z.infer<typeof agentSchema>;

export const agentsSchema = z
  .array(agentSchema)
  .superRefine(
    uniqueEntries('id', 'agents', (id, first) => `duplicate agent id '${id}' (first used by ${first})`),
  )
  .default([])
  .describe('agents allowed to connect; an agent not listed here is refused');
