// What the client-credentials API takes and answers: /clients (a type, one or more roles, the bound
// agent) and the deprecated /oauth/clients (one role, always Deployments Full Access). The secret
// appears in two answers only, a creation's and a rotation's; a listed client never carries it.
import { z } from 'zod';
import { agentIdSchema, roleSchema } from '../config/index.ts';
import { clientTypeSchema } from './client-type.ts';
import type { StoredClient } from './oauth-store.ts';

const nameSchema = z
  .string()
  .min(1)
  .max(200)
  .describe('what the client is for, for people (unique names help)');

export const newCredentialSchema = z
  .object({
    name: nameSchema,
    type: clientTypeSchema,
    roles: z
      .array(roleSchema)
      .min(1, { error: 'give the credential at least one role' })
      .describe('the roles the credential acts with, matched against account permissions; one or more'),
    agentId: agentIdSchema
      .optional()
      .describe('remoteNetworkAgent only, and required there: the agent id the credential connects as'),
  })
  .superRefine((body, context) => {
    if (body.type === 'remoteNetworkAgent' && body.agentId === undefined)
      context.addIssue({
        code: 'custom',
        path: ['agentId'],
        message: 'a remoteNetworkAgent credential needs the agentId it connects as',
      });
    if (body.type === 'deployments' && body.agentId !== undefined)
      context.addIssue({
        code: 'custom',
        path: ['agentId'],
        message: 'a deployments credential is not bound to an agent: leave agentId out',
      });
  })
  .meta({ title: 'NewClientCredential' });

export const credentialViewSchema = z
  .object({
    clientId: z.string().describe('the client_id of the token request'),
    name: z.string(),
    type: clientTypeSchema,
    roles: z.array(z.string()),
    agentId: z.string().nullable().describe('the agent a remoteNetworkAgent credential connects as'),
    createdBy: z.string().describe('the user who created the credential'),
    created: z.string().describe('when the credential was created, ISO 8601'),
    rotated: z.string().nullable().describe('when its secret was last replaced, ISO 8601'),
    revoked: z.string().nullable().describe('when the credential was revoked, ISO 8601; null while usable'),
  })
  .meta({ title: 'ClientCredential' });

export const credentialSecretSchema = credentialViewSchema
  .extend({
    clientSecret: z
      .string()
      .describe(
        "the secret: the client_secret of the token request, or an agent's cloudctl.auth.token; shown this once only",
      ),
  })
  .meta({ title: 'ClientCredentialSecret' });

export const newClientSchema = z.object({
  name: nameSchema,
  role: roleSchema.describe('the role the client acts with, matched against account permissions'),
});

export const clientViewSchema = z
  .object({
    clientId: z.string().describe('the client_id of the token request'),
    name: z.string(),
    role: z.string().describe('its first role (GET /clients lists them all)'),
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

export type NewCredential = z.infer<typeof newCredentialSchema>;
export type CredentialView = z.infer<typeof credentialViewSchema>;
export type CredentialSecret = z.infer<typeof credentialSecretSchema>;
export type ClientView = z.infer<typeof clientViewSchema>;

const iso = (at: Date | null) => (at === null ? null : at.toISOString());

export function credentialView(client: StoredClient): CredentialView {
  return {
    clientId: client.clientId,
    name: client.name,
    type: client.type,
    roles: client.roles,
    agentId: client.agentId,
    createdBy: client.createdBy,
    created: client.createdAt.toISOString(),
    rotated: iso(client.rotatedAt),
    revoked: iso(client.revokedAt),
  };
}

/** A client as the deprecated /oauth/clients lists it: its first role only. */
export function clientView(client: StoredClient): ClientView {
  return {
    clientId: client.clientId,
    name: client.name,
    role: client.roles[0] ?? '',
    createdBy: client.createdBy,
    created: client.createdAt.toISOString(),
    revoked: iso(client.revokedAt),
  };
}
