// /clients: the client credentials people make (the spec's Client Credentials screen, Authentication
// 4): POST creates one with a name, a type and one or more roles (a remote network agent's also with
// the agent id it connects as) and answers its secret this once; GET lists them without secrets;
// DELETE revokes; POST .../rotate replaces the secret. Administrators only.
import { z } from 'zod';
import { defineRoute, errorAnswers, Reply, type Route } from '../http/index.ts';
import type { ClientCredentials } from './client-credentials.ts';
import {
  credentialSecretSchema,
  credentialView,
  credentialViewSchema,
  newCredentialSchema,
} from './client-views.ts';

const TAG = 'client-credentials';
const NO_STORE = { 'cache-control': 'no-store' };
const clientIdParams = z.object({ clientId: z.string().min(1) });

export function credentialRoutes(credentials: ClientCredentials): Route[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/clients',
      summary: 'Creates a client credential; the answer holds its secret, shown this once only',
      tag: TAG,
      access: 'user',
      schema: { body: newCredentialSchema, response: { 201: credentialSecretSchema } },
      handler: async ({ body, user }) =>
        new Reply(201, await credentials.create(user, body), undefined, NO_STORE),
    }),
    defineRoute({
      method: 'GET',
      url: '/clients',
      summary: 'Every client credential, revoked ones included, without secrets',
      tag: TAG,
      access: 'user',
      schema: { response: { 200: z.array(credentialViewSchema) } },
      handler: async ({ user }) => (await credentials.list(user)).map(credentialView),
    }),
    defineRoute({
      method: 'DELETE',
      url: '/clients/:clientId',
      summary:
        "Revokes a client credential: no new tokens, its tokens stop working, and its agent's streams end",
      tag: TAG,
      access: 'user',
      schema: { params: clientIdParams, response: { 200: credentialViewSchema } },
      handler: async ({ params, user }) => credentialView(await credentials.revoke(user, params.clientId)),
    }),
    defineRoute({
      method: 'POST',
      url: '/clients/:clientId/rotate',
      summary:
        'Replaces the secret of a client credential: the new one is answered this once, the old one stops working at once',
      tag: TAG,
      access: 'user',
      schema: {
        params: clientIdParams,
        response: { 200: credentialSecretSchema, ...errorAnswers('CONFLICT') },
      },
      handler: async ({ params, user }) =>
        new Reply(200, await credentials.rotate(user, params.clientId), undefined, NO_STORE),
    }),
  ];
}
