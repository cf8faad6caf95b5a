// `oauth.*`: the access tokens cloudctl issues to OAuth client credentials (POST /oauth/token).
import { z } from 'zod';

export const oauthSchema = z
  .strictObject({
    tokenLifetimeSeconds: z
      .number()
      .int()
      .positive()
      .default(3600)
      .describe('how long an access token from POST /oauth/token is valid (its expires_in)'),
  })
  .describe('OAuth 2.0 client credentials (webhook callbacks)');
