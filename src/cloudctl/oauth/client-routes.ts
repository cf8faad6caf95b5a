// The first client-credentials API, /oauth/clients, kept for the scripts written against it and
// deprecated in the API document for /clients: a client made here is a Deployments Full Access
// credential with one role; the list shows every credential (of either type) with its first role.
// Both are the same credentials as /clients manages, through the same service.
import { z } from 'zod';
import { defineRoute, errorBodySchema, Reply, type Route } from '../http/index.ts';
import type { ClientCredentials } from './client-credentials.ts';
import { clientView, clientViewSchema, createdClientSchema, newClientSchema } from './client-views.ts';

const TAG = 'oauth-clients';

export function clientRoutes(credentials: ClientCredentials): Route[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/oauth/clients',
      summary:
        'Deprecated (use POST /clients): creates a Deployments Full Access credential with one role; the answer holds its secret, shown this once only',
      tag: TAG,
      deprecated: true,
      access: 'user',
      schema: { body: newClientSchema, response: { 201: createdClientSchema } },
      handler: async ({ body, user }) => {
        const created = await credentials.create(user, {
          name: body.name,
          type: 'deployments',
          roles: [body.role],
        });
        return new Reply(
          201,
          {
            clientId: created.clientId,
            clientSecret: created.clientSecret,
            name: created.name,
            role: body.role,
            created: created.created,
          },
          undefined,
          { 'cache-control': 'no-store' },
        );
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/oauth/clients',
      summary:
        'Deprecated (use GET /clients): every client credential, revoked ones included, without secrets',
      tag: TAG,
      deprecated: true,
      access: 'user',
      schema: { response: { 200: z.array(clientViewSchema) } },
      handler: async ({ user }) => (await credentials.list(user)).map(clientView),
    }),
    defineRoute({
      method: 'DELETE',
      url: '/oauth/clients/:clientId',
      summary: 'Deprecated (use DELETE /clients/{clientId}): revokes a client credential',
      tag: TAG,
      deprecated: true,
      access: 'user',
      schema: {
        params: z.object({ clientId: z.string() }),
        response: { 200: clientViewSchema, 404: errorBodySchema.describe('No such client') },
      },
      handler: async ({ params, user }) => clientView(await credentials.revoke(user, params.clientId)),
    }),
  ];
}
