// POST /oauth/token: the token endpoint of the client-credentials grant, as webhook jobs call it
// (a form, or JSON). Its answers and refusals have RFC 6749's shapes, not the API's error body, so
// OAuth clients parse them; they are never cached (RFC 6749 section 5.1).
import { defineRoute, Reply, type Route } from '../http/index.ts';
import { OAUTH_ERRORS, oauthError, oauthErrorSchema } from './oauth-errors.ts';
import { audienceProblem } from './token-audience.ts';
import type { TokenIssuer } from './token-issuer.ts';
import { tokenRequestSchema, tokenResponseSchema } from './token-request.ts';

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** `externalUrl`: where cloudctl's API is reached, the audience its tokens are for. */
export function tokenRoute(issuer: TokenIssuer, externalUrl: () => string): Route {
  return defineRoute({
    method: 'POST',
    url: '/oauth/token',
    summary: 'Issues an access token to a client credential (OAuth 2.0 client_credentials grant)',
    tag: 'oauth-token',
    access: 'public',
    consumes: ['application/x-www-form-urlencoded'],
    errorBody: (_status, message) => oauthError('invalid_request', message),
    schema: {
      body: tokenRequestSchema,
      response: {
        200: tokenResponseSchema,
        400: oauthErrorSchema.describe(
          'invalid_request (a missing, repeated or malformed field, or an audience other than this cloudctl) or unsupported_grant_type',
        ),
        401: oauthErrorSchema.describe('invalid_client: unknown client, wrong secret or revoked client'),
        413: oauthErrorSchema.describe('invalid_request: the body is over the limit'),
        415: oauthErrorSchema.describe('invalid_request: the body is neither a form nor JSON'),
      },
    },
    handler: async ({ body, headers }) => {
      const problem = audienceProblem(body.audience, externalUrl(), headers.host);
      if (problem !== undefined)
        return new Reply(400, oauthError('invalid_request', problem), undefined, NO_STORE);
      const issued = await issuer.issue(body);
      if (issued.ok) return new Reply(200, issued.token, undefined, NO_STORE);
      return new Reply(OAUTH_ERRORS[issued.refusal.error].status, issued.refusal, undefined, NO_STORE);
    },
  });
}
