// The client-credentials API: administrators create clients (the secret is answered once), list
// them without secrets, and revoke them. A revoked client's tokens stop working at once.
import { z } from 'zod';
import type { Principal } from '../auth/index.ts';
import { defineRoute, errorBodySchema, HttpError, Reply, type Route } from '../http/index.ts';
import { hashSecret, newClientId, newSecret } from './client-secret.ts';
import { clientView, clientViewSchema, createdClientSchema, newClientSchema } from './client-views.ts';
import type { OAuthStore } from './oauth-store.ts';

const TAG = 'oauth-clients';

export interface ClientRoutesDeps {
  store: OAuthStore;
  now: () => Date;
}

function requireAdmin(user: Principal): void {
  if (!user.admin) throw new HttpError('FORBIDDEN', 'only an administrator manages OAuth clients');
}

export function clientRoutes(deps: ClientRoutesDeps): Route[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/oauth/clients',
      summary: 'Creates a client credential; the answer holds its secret, shown this once only',
      tag: TAG,
      access: 'user',
      schema: { body: newClientSchema, response: { 201: createdClientSchema } },
      handler: async ({ body, user }) => {
        requireAdmin(user);
        const clientId = newClientId();
        const secret = newSecret();
        const createdAt = deps.now();
        await deps.store.createClient({
          clientId,
          name: body.name,
          role: body.role,
          secretHash: hashSecret(secret),
          createdBy: user.name,
          createdAt,
        });
        return new Reply(
          201,
          {
            clientId,
            clientSecret: secret,
            name: body.name,
            role: body.role,
            created: createdAt.toISOString(),
          },
          undefined,
          { 'cache-control': 'no-store' },
        );
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/oauth/clients',
      summary: 'Every client credential, revoked ones included, without secrets',
      tag: TAG,
      access: 'user',
      schema: { response: { 200: z.array(clientViewSchema) } },
      handler: async ({ user }) => {
        requireAdmin(user);
        return (await deps.store.listClients()).map(clientView);
      },
    }),
    defineRoute({
      method: 'DELETE',
      url: '/oauth/clients/:clientId',
      summary: 'Revokes a client credential: no new tokens, and its tokens stop working',
      tag: TAG,
      access: 'user',
      schema: {
        params: z.object({ clientId: z.string() }),
        response: { 200: clientViewSchema, 404: errorBodySchema.describe('No such client') },
      },
      handler: async ({ params, user }) => {
        requireAdmin(user);
        const revoked = await deps.store.revokeClient(params.clientId, deps.now());
        if (revoked === undefined) throw new HttpError('NOT_FOUND', `no OAuth client ${params.clientId}`);
        return clientView(revoked);
      },
    }),
  ];
}
