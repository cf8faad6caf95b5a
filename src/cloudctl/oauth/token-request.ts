// The token request and answer of the client-credentials grant (RFC 6749 section 4.4), with the
// fields the spec's webhook jobs send: `audience`, `grant_type`, `client_id`, `client_secret`. The
// grant type is parsed as any string, so that another grant is answered with the RFC's
// `unsupported_grant_type` rather than a generic refusal; the document names the one it serves.
import { z } from 'zod';
import { SWAGGER_TYPE } from '../http/index.ts';

export const tokenRequestSchema = z.object({
  grant_type: z
    .string()
    .meta({ [SWAGGER_TYPE]: { type: 'string', enum: ['client_credentials'] } })
    .describe('the grant: client_credentials only'),
  client_id: z.string().describe('the clientId POST /oauth/clients answered'),
  client_secret: z.string().describe('the clientSecret POST /oauth/clients answered'),
  audience: z
    .string()
    .optional()
    .describe(
      "the API the token is for: cloudctl's URL (http.externalUrl, or the address the job reaches it at); optional",
    ),
  scope: z.string().optional().describe("not used: a token carries its client's role"),
});

export const tokenResponseSchema = z
  .object({
    access_token: z.string().describe('send as Authorization: Bearer <access_token>'),
    expires_in: z.int().describe('seconds the token stays valid'),
    token_type: z.literal('Bearer'),
  })
  .meta({ title: 'TokenResponse' });

export type TokenRequest = z.infer<typeof tokenRequestSchema>;
export type TokenResponse = z.infer<typeof tokenResponseSchema>;
