// The JWTs of the OpenID Connect provider as a source of the HTTP API's authenticator: a token
// proves its user when the provider signed it (RS256 or ES256, with a key it publishes), it names the
// configured issuer and audience, and it is within its lifetime give or take the clock skew. Its
// groups claim becomes the user's roles. A refusal names what is wrong and never repeats the token.
import { decodeJwt, errors, type JWTPayload, jwtVerify } from 'jose';
import type { OidcSettings } from '../config/index.ts';
import { type OidcProvider, OidcProviderUnreachable } from './oidc-provider.ts';
import type { TokenIdentity, TokenRefusal, TokenSource } from './token-source.ts';

/** A compact JWS has three dot-separated base64url parts; anything else is another source's token. */
const COMPACT_JWS = /^[\w-]+\.[\w-]+\.[\w-]*$/;

export function oidcTokens(provider: OidcProvider, now: () => Date): TokenSource {
  return { identify: (token) => identify(token, provider, now) };
}

async function identify(
  token: string,
  provider: OidcProvider,
  now: () => Date,
): Promise<TokenIdentity | TokenRefusal | undefined> {
  const { settings } = provider;
  if (!COMPACT_JWS.test(token)) return undefined;
  let unverified: JWTPayload;
  try {
    unverified = decodeJwt(token);
  } catch {
    return undefined;
  }
  // Checked before any key is fetched: another issuer's key ids must not make cloudctl refetch ours.
  if (unverified.iss !== settings.issuer) {
    return refuse(
      unverified.iss === undefined
        ? 'the bearer token names no issuer (iss)'
        : `the bearer token was issued by another issuer than ${settings.issuer}`,
    );
  }
  try {
    const { payload } = await jwtVerify(token, await provider.keys(), {
      issuer: settings.issuer,
      audience: settings.audience,
      algorithms: settings.algorithms,
      clockTolerance: settings.clockSkewSeconds,
      currentDate: now(),
      requiredClaims: ['exp'],
    });
    return identityOf(payload, settings);
  } catch (error) {
    return refuse(verificationFailure(error, settings));
  }
}

function refuse(reason: string): TokenRefusal {
  return { refused: reason };
}

/** Why jose refused the token, in words that tell the caller what to fix. */
function verificationFailure(error: unknown, settings: OidcSettings): string {
  if (error instanceof OidcProviderUnreachable) {
    return `the OIDC provider ${settings.issuer} could not be reached to check the bearer token: ${error.message}`;
  }
  if (error instanceof errors.JWTExpired) return 'the bearer token has expired (exp)';
  if (error instanceof errors.JWTClaimValidationFailed) return claimFailure(error, settings);
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return "the bearer token's signature does not verify with the provider's key";
  }
  if (error instanceof errors.JWKSNoMatchingKey) {
    return "the bearer token's signature was made with a key the provider does not publish";
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return `the bearer token is signed with an algorithm cloudctl does not accept (it accepts ${settings.algorithms.join(', ')})`;
  }
  if (error instanceof errors.JWKSTimeout) {
    return `the OIDC provider ${settings.issuer} did not answer in time for its signing keys`;
  }
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid) {
    return 'the bearer token is not a well-formed JWT';
  }
  return `the bearer token could not be verified: ${error instanceof Error ? error.message : String(error)}`;
}

function claimFailure(error: InstanceType<typeof errors.JWTClaimValidationFailed>, settings: OidcSettings) {
  switch (error.claim) {
    case 'aud':
      return `the bearer token is not meant for this API: its audience (aud) does not include ${settings.audience}`;
    case 'nbf':
      return 'the bearer token is not valid yet (nbf)';
    case 'exp':
      return 'the bearer token has no expiry (exp)';
    case 'iat':
      return 'the bearer token was issued in the future (iat)';
    default:
      return `the bearer token's ${error.claim} claim is not acceptable: ${error.message}`;
  }
}

function identityOf(payload: JWTPayload, settings: OidcSettings): TokenIdentity | TokenRefusal {
  const name = payload[settings.usernameClaim];
  if (typeof name !== 'string' || name === '') {
    return refuse(`the bearer token has no ${settings.usernameClaim} claim to name the user`);
  }
  return { name, roles: rolesOf(groupsOf(payload[settings.groupsClaim]), settings.groupRoles) };
}

/** Providers write groups as an array of names, some as one name when there is only one. */
function groupsOf(claim: unknown): string[] {
  if (typeof claim === 'string') return [claim];
  if (!Array.isArray(claim)) return [];
  return claim.filter((group): group is string => typeof group === 'string');
}

/**
 * With a mapping, only the groups it lists grant roles, so a group someone creates at the provider
 * grants nothing until cloudctl's config says so; without one, each group is a role of its name.
 * Role names may not contain whitespace (see roleSchema), so such groups grant nothing either.
 */
function rolesOf(groups: readonly string[], mapping: OidcSettings['groupRoles']): string[] {
  const roles = mapping === undefined ? groups : groups.flatMap((group) => mapping[group] ?? []);
  return [...new Set(roles.filter((role) => /^\S+$/.test(role)))];
}
