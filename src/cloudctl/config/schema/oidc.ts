// `auth.oidc`: people sign in with an OpenID Connect provider; cloudctl accepts the provider's signed
// JWTs as bearer tokens and maps a groups claim to roles, so account permissions apply as they do to
// the static users of `users[]`.
import { z } from 'zod';
import { setting } from '../../../lib/setting-meta.ts';
import { roleSchema } from './roles.ts';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An issuer as OIDC discovery requires: https (plain http only on loopback, for tests), no query or fragment. */
const issuerSchema = z
  .string()
  .min(1)
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: `'${value}' is not a URL` });
      return;
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
      ctx.addIssue({
        code: 'custom',
        message: 'the issuer must be an https URL (plain http is allowed on loopback only)',
      });
    }
    if (url.search !== '' || url.hash !== '') {
      ctx.addIssue({ code: 'custom', message: 'the issuer may have no query and no fragment' });
    }
  });

/** The status page as an OAuth client of the provider: the authorization-code flow with PKCE. */
const statusPageClientSchema = z
  .strictObject({
    clientId: z.string().min(1).describe('the client id the provider gave the status page'),
    clientSecret: setting(z.string().min(1).optional(), {
      description:
        'its secret, sent to the token endpoint (client_secret_post), usually an `encrypted:` reference; absent for a public client, which PKCE alone protects',
      secret: true,
    }),
    redirectUrl: setting(z.url(), {
      type: 'URL',
      description:
        "where the provider sends the browser back: cloudctl's own URL followed by /status/oidc/callback, registered at the provider",
    }),
    scopes: z
      .array(z.string().min(1))
      .default(['openid'])
      .describe(
        'scopes asked for; add the one that puts groups in the access token if the provider needs one',
      ),
  })
  .describe('lets people sign in to the status page at the provider (authorization-code flow with PKCE)');

/**
 * `cloudctl login --sso` as an OAuth client of the provider: a public client (no secret: a program on
 * people's machines cannot keep one) that PKCE protects, with a loopback redirect (RFC 8252 section 7.3).
 */
const cliClientSchema = z
  .strictObject({
    clientId: z
      .string()
      .min(1)
      .describe(
        'the client id of a public client (no secret, token endpoint auth `none`) registered with the redirect URL http://127.0.0.1/callback; the provider must accept any port on it, as RFC 8252 asks',
      ),
    scopes: z
      .array(z.string().min(1))
      .default(['openid'])
      .describe(
        'scopes asked for; add the one that puts groups in the access token if the provider needs one',
      ),
  })
  .describe(
    'lets `cloudctl login --sso` sign people in at the provider (authorization-code flow with PKCE, loopback redirect); GET /auth/cli tells the CLI this client',
  );

export const oidcSchema = z
  .strictObject({
    issuer: issuerSchema.describe(
      "the provider's issuer URL, exactly as its tokens' `iss` claim says; its discovery document is read from `<issuer>/.well-known/openid-configuration`",
    ),
    audience: z
      .string()
      .min(1)
      .describe(
        "the audience (`aud`) a token must name to be accepted: the identifier of cloudctl's API at the provider",
      ),
    usernameClaim: z
      .string()
      .min(1)
      .default('sub')
      .describe(
        'the claim whose value is the user name logged and shown as task owner (`sub`, `email`, `preferred_username`)',
      ),
    groupsClaim: z
      .string()
      .min(1)
      .default('groups')
      .describe("the claim that lists the user's groups (an array of strings, or one string)"),
    groupRoles: z
      .record(z.string().min(1), z.array(roleSchema))
      .optional()
      .describe(
        'group -> roles it grants; when set, only the groups listed grant roles; when absent, each group is a role of the same name',
      ),
    clockSkewSeconds: z
      .number()
      .int()
      .nonnegative()
      .default(60)
      .describe("how far `exp` and `nbf` may be off cloudctl's clock"),
    algorithms: z
      .array(z.enum(['RS256', 'ES256']))
      .min(1)
      .default(['RS256', 'ES256'])
      .describe('signature algorithms accepted; any other is refused'),
    jwksRefetchSeconds: z
      .number()
      .int()
      .nonnegative()
      .default(30)
      .describe(
        'a token signed with a key cloudctl does not know makes it fetch the key set again, at most once in this many seconds',
      ),
    jwksMaxAgeSeconds: z
      .number()
      .int()
      .positive()
      .default(600)
      .describe('how long a fetched key set is used before it is fetched again'),
    timeoutSeconds: z
      .number()
      .int()
      .positive()
      .default(5)
      .describe('how long cloudctl waits for the discovery document or the key set'),
    statusPage: statusPageClientSchema.optional(),
    cli: cliClientSchema.optional(),
  })
  .describe('sign-in with an OpenID Connect provider (bearer JWTs)');

export type OidcSettings = z.infer<typeof oidcSchema>;
