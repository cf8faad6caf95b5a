// The token endpoint's errors, as RFC 6749 section 5.2 names them, in one place: the body every
// refusal of POST /oauth/token carries, and the status each code is answered with.
import { z } from 'zod';

export const OAUTH_ERRORS = {
  invalid_request: { status: 400, meaning: 'a parameter is missing, repeated or malformed' },
  invalid_client: { status: 401, meaning: 'unknown client, wrong secret, or a revoked client' },
  invalid_grant: { status: 400, meaning: 'the grant is invalid, expired or revoked' },
  unauthorized_client: { status: 400, meaning: 'the client may not use this grant type' },
  unsupported_grant_type: { status: 400, meaning: 'only client_credentials is served' },
  invalid_scope: { status: 400, meaning: 'the scope is invalid or beyond what the client has' },
} as const;

export type OAuthErrorCode = keyof typeof OAUTH_ERRORS;

export const oauthErrorSchema = z
  .object({
    error: z.enum(Object.keys(OAUTH_ERRORS) as [OAuthErrorCode, ...OAuthErrorCode[]]),
    error_description: z.string().describe('what was wrong, for people'),
  })
  .meta({ title: 'OAuthError' });

export type OAuthErrorBody = z.infer<typeof oauthErrorSchema>;

export function oauthError(error: OAuthErrorCode, description: string): OAuthErrorBody {
  return { error, error_description: description };
}
