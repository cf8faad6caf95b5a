// What the client-credentials API takes and answers. The secret appears in one answer only: the
// creation's; a listed client never carries it.
import { z } from 'zod';
import { roleSchema } from '../config/index.ts';
import type { StoredClient } from './oauth-store.ts';

export const newClientSchema = z.object({
  name: z.string().min(1).max(200).describe('what the client is for, for people (unique names help)'),
  role: roleSchema.describe('the role the client acts with, matched against account permissions'),
});

export const clientViewSchema = z
  .object({
    clientId: z.string().describe('the client_id of the token request'),
    name: z.string(),
    role: z.string(),
    createdBy: z.string().describe('the user who created the client'),
    created: z.string().describe('when the client was created, ISO 8601'),
    revoked: z.string().nullable().describe('when the client was revoked, ISO 8601; null while usable'),
  })
  .meta({ title: 'OAuthClient' });

export const createdClientSchema = z
  .object({
    clientId: z.string().describe('the client_id of the token request'),
    clientSecret: z.string().describe('the client_secret of the token request; shown this once only'),
    name: z.string(),
    role: z.string(),
    created: z.string().describe('when the client was created, ISO 8601'),
  })
  .meta({ title: 'NewOAuthClient' });

export type NewClient = z.infer<typeof newClientSchema>;
export type ClientView = z.infer<typeof clientViewSchema>;
export type CreatedClient = z.infer<typeof createdClientSchema>;

export function clientView(client: StoredClient): ClientView {
  return {
    clientId: client.clientId,
    name: client.name,
    role: client.role,
    createdBy: client.createdBy,
    created: client.createdAt.toISOString(),
    revoked: client.revokedAt === null ? null : client.revokedAt.toISOString(),
  };
}
