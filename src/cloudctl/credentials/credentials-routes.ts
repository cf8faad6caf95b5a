// The credentials API of the service we mirror (its credentials-controller): accounts from every
// source to read, and accounts defined in cloudctl to create, update, delete and follow in history.
import { z } from 'zod';
import {
  defineRoute,
  errorBodySchema,
  queryBoolean,
  queryInteger,
  Reply,
  type Route,
} from '../http/index.ts';
import { credentialsDefinitionSchema, storedDefinitionSchema } from './credentials-definition.ts';
import { Credentials, type CredentialsDeps } from './credentials-service.ts';
import { accountViewSchema, revisionSchema, revisionView } from './credentials-view.ts';

const TAG = 'credentials';

const accountName = z.object({ accountName: z.string() });

export function credentialsRoutes(deps: CredentialsDeps): Route[] {
  const credentials = new Credentials(deps);
  return [
    defineRoute({
      method: 'GET',
      url: '/credentials',
      summary: 'Every account the user may read, from agents and from cloudctl, by name',
      tag: TAG,
      access: 'user',
      schema: {
        querystring: z.object({ expand: queryBoolean(false) }),
        response: { 200: z.array(accountViewSchema) },
      },
      handler: async ({ query, user }) => credentials.list(user, query.expand),
    }),
    defineRoute({
      method: 'GET',
      url: '/credentials/:accountName',
      summary: 'One account, with its definition fields',
      tag: TAG,
      access: 'user',
      schema: { params: accountName, response: { 200: accountViewSchema } },
      handler: async ({ params, user }) => credentials.get(user, params.accountName),
    }),
    defineRoute({
      method: 'POST',
      url: '/credentials',
      summary: 'Creates an account in cloudctl; answers the definition as stored',
      tag: TAG,
      access: 'user',
      schema: {
        body: credentialsDefinitionSchema,
        response: { 200: storedDefinitionSchema, 409: errorBodySchema },
      },
      handler: async ({ body, user }) => credentials.create(user, body),
    }),
    defineRoute({
      method: 'PUT',
      url: '/credentials',
      summary: "Replaces an account's definition; accounts of agents' config files are changed there",
      tag: TAG,
      access: 'user',
      schema: {
        body: credentialsDefinitionSchema,
        response: { 200: storedDefinitionSchema, 409: errorBodySchema },
      },
      handler: async ({ body, user }) => credentials.update(user, body),
    }),
    defineRoute({
      method: 'DELETE',
      url: '/credentials/:accountName',
      summary: 'Deletes an account defined in cloudctl; its history stays',
      tag: TAG,
      access: 'user',
      schema: {
        params: accountName,
        response: { 204: z.void().describe('Deleted'), 409: errorBodySchema },
      },
      handler: async ({ params, user }) => {
        await credentials.delete(user, params.accountName);
        return new Reply(204, null);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/credentials/:accountName/history',
      summary: "Every revision of an account's definition, newest first, deletes included",
      tag: TAG,
      access: 'user',
      schema: { params: accountName, response: { 200: z.array(revisionSchema) } },
      handler: async ({ params, user }) =>
        (await credentials.history(user, params.accountName)).map(revisionView),
    }),
    defineRoute({
      method: 'GET',
      url: '/credentials/type/:accountType',
      summary: 'Definitions of one account type (orchestrator) the user may read, paged by name',
      tag: TAG,
      access: 'user',
      schema: {
        params: z.object({ accountType: z.string() }),
        querystring: z.object({
          limit: queryInteger(z.int().min(1).max(10_000)).describe('most definitions to answer'),
          startingAccountName: z.string().optional().describe('first name of the page (inclusive)'),
        }),
        response: { 200: z.array(storedDefinitionSchema) },
      },
      handler: async ({ params, query, user }) =>
        credentials.listByType(user, params.accountType, query.limit, query.startingAccountName),
    }),
  ];
}
