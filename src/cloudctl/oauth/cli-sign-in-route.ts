// GET /auth/cli: what `cloudctl login --sso` needs to sign a person in at the OpenID Connect provider
// (`auth.oidc.cli`): the issuer to discover, the public client to ask as, the scopes, and the audience
// cloudctl accepts tokens for (providers that issue access tokens per API take it in the request).
// Public, as a provider's discovery document is: it names no secret, and the CLI has no token yet.
// 404 when this cloudctl has no such client, so the CLI can say so instead of failing at the provider.
import { z } from 'zod';
import type { OidcSettings } from '../config/index.ts';
import { defineRoute, errorBodySchema, HttpError, type Route } from '../http/index.ts';

export const CLI_SIGN_IN_PATH = '/auth/cli';

const cliSignInSchema = z
  .object({
    issuer: z
      .string()
      .describe("the provider's issuer URL; discovery at <issuer>/.well-known/openid-configuration"),
    clientId: z.string().describe('the public client the CLI signs in as (PKCE, loopback redirect)'),
    scopes: z.array(z.string()).describe('the scopes to ask for'),
    audience: z.string().describe('the audience the access token must name for cloudctl to accept it'),
  })
  .describe('CliSignIn');

export function cliSignInRoute(oidc: OidcSettings | undefined): Route {
  return defineRoute({
    method: 'GET',
    url: CLI_SIGN_IN_PATH,
    summary: 'How `cloudctl login --sso` signs in at the OpenID Connect provider (auth.oidc.cli)',
    tag: 'oauth-token',
    access: 'public',
    schema: {
      response: {
        200: cliSignInSchema,
        404: errorBodySchema.describe('No OIDC sign-in for the CLI is configured (auth.oidc.cli)'),
      },
    },
    handler: async () => {
      if (oidc?.cli === undefined)
        throw new HttpError(
          'NOT_FOUND',
          'this cloudctl has no OIDC sign-in configured for the CLI (auth.oidc.cli)',
        );
      return {
        issuer: oidc.issuer,
        clientId: oidc.cli.clientId,
        scopes: oidc.cli.scopes,
        audience: oidc.audience,
      };
    },
  });
}
