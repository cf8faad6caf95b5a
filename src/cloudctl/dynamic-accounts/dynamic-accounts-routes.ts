// The dynamic accounts interface: /vendor/accounts to list, read, register (POST), activate (PATCH)
// and remove from agents (DELETE). The spec's 400 (an account not defined in cloudctl, or one that
// cannot be activated) names the account and the reason.
import { z } from 'zod';
import { defineRoute, errorBodySchema, queryInteger, type Route } from '../http/index.ts';
import { accountListSchema, accountRecordSchema, migrationRequestSchema } from './account-record.ts';
import { DynamicAccountsApi, type DynamicAccountsDeps } from './dynamic-accounts-service.ts';

const TAG = 'dynamic-accounts-controller';

/** GET names it {accountId} and DELETE {accountName} in the spec; one path takes one name, and both are the account's name. */
const accountPath = z.object({
  accountName: z.string().describe("the account's name (the spec's accountId)"),
});

const notDefined = errorBodySchema.describe(
  'An account is not defined in cloudctl, or cannot be changed as asked; the message names it and why',
);

export function dynamicAccountsRoutes(deps: DynamicAccountsDeps): Route[] {
  const api = new DynamicAccountsApi(deps);
  return [
    defineRoute({
      method: 'GET',
      url: '/vendor/accounts',
      summary:
        "Every account the user may read, agents' static ones and cloudctl's, by name, a page at a time",
      tag: TAG,
      access: 'user',
      schema: {
        querystring: z.object({
          page: queryInteger(z.int().min(1).max(1_000_000).default(1)).describe('the page, from 1'),
          limit: queryInteger(z.int().min(1).max(1000).default(100)).describe('accounts per page'),
        }),
        response: { 200: accountListSchema },
      },
      handler: async ({ query, user }) => api.list(user, query.page, query.limit),
    }),
    defineRoute({
      method: 'GET',
      url: '/vendor/accounts/:accountName',
      summary: 'One account: where it is defined, its zone, the agents that hold it, its state',
      tag: TAG,
      access: 'user',
      schema: { params: accountPath, response: { 200: accountRecordSchema } },
      handler: async ({ params, user }) => api.get(user, params.accountName),
    }),
    defineRoute({
      method: 'POST',
      url: '/vendor/accounts',
      summary:
        'Registers accounts defined in cloudctl for migration to agents; they are INACTIVE until PATCH',
      tag: TAG,
      access: 'user',
      schema: {
        body: migrationRequestSchema,
        response: { 200: z.array(accountRecordSchema), 400: notDefined },
      },
      handler: async ({ body, user }) => api.register(user, body),
    }),
    defineRoute({
      method: 'PATCH',
      url: '/vendor/accounts',
      summary:
        'Activates registered accounts (state: ACTIVE): sends them to the agents of their zone, or to all',
      tag: TAG,
      access: 'user',
      schema: {
        body: migrationRequestSchema,
        response: { 200: z.array(accountRecordSchema), 400: notDefined },
      },
      handler: async ({ body, user }) => api.activate(user, body),
    }),
    defineRoute({
      method: 'DELETE',
      url: '/vendor/accounts/:accountName',
      summary: 'Removes a cloudctl account from the agents that hold it; it stays registered, INACTIVE',
      tag: TAG,
      access: 'user',
      schema: {
        params: accountPath,
        response: { 200: accountRecordSchema, 400: notDefined },
      },
      handler: async ({ params, user }) => api.deactivate(user, params.accountName),
    }),
  ];
}
