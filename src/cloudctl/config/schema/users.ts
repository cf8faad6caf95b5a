// `users[]`: people and tools that call the HTTP API, each known by the hash of their bearer token.
import { z } from 'zod';
import { uniqueEntries } from '../../../lib/unique-entries.ts';
import { roleSchema } from './roles.ts';
import { tokenHashSchema } from './token-hash.ts';

export const userSchema = z
  .strictObject({
    name: z.string().min(1).describe('user name, as logged and shown in task owners'),
    tokenHash: tokenHashSchema().describe('SHA-256 of the bearer token the user sends'),
    roles: z.array(roleSchema).default([]).describe('roles matched against account permissions'),
  })
  .describe('a user of the HTTP API');

export type UserEntry = z.infer<typeof userSchema>;

export const usersSchema = z
  .array(userSchema)
  .superRefine(
    uniqueEntries('name', 'users', (name, first) => `duplicate user name '${name}' (first used by ${first})`),
  )
  .superRefine(
    uniqueEntries(
      'tokenHash',
      'users',
      (_, first) => `two users may not share a token (${first} has the same hash)`,
    ),
  )
  .default([])
  .describe('users of the HTTP API; a request must carry the token of one of them');
