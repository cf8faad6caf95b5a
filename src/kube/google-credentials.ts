// Which kubeconfig users get their bearer token from Google with the account's `oAuthScopes`, the
// decision client-go's gcp auth provider made, kept where it still applies:
// - a user with `auth-provider: gcp` and a `cmd-path` runs that command (client-node does it, as
//   client-go did): the command chooses the credentials, so scopes are its business;
// - otherwise a gcp user's token comes from a service-account key file, the auth provider's
//   `credentials-file` or, as application-default credentials, `GOOGLE_APPLICATION_CREDENTIALS`,
//   with the account's `oAuthScopes`, else the provider's `scopes` (comma-separated, as client-go
//   read it), else client-go's defaults; without a key file a cached `access-token` is used as is;
// - a user with no credentials of its own (no token, certificate, exec plugin, auth provider or
//   password), or no user, gets the key of `GOOGLE_APPLICATION_CREDENTIALS` when the account sets
//   `oAuthScopes`: the scopes say the account means to sign in with Google.
// The gcp provider is taken off the user it replaces, so client-node's own gcp code does not run.
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import type { User } from '@kubernetes/client-node/dist/config_types.js';
import type { Dispatcher } from 'undici';
import { CodedError } from '../lib/coded-error.ts';
import { isRecord } from '../lib/is-record.ts';
import { readGoogleServiceAccountKey } from './google-service-account-key.ts';
import { GOOGLE_DEFAULT_SCOPES, GoogleTokenSource } from './google-token-source.ts';

export class GoogleCredentialsError extends CodedError<'GOOGLE_CREDENTIALS_MISSING'> {
  constructor(message: string) {
    super('GOOGLE_CREDENTIALS_MISSING', message);
  }
}

export interface GoogleCredentialsOptions {
  /** `orchestrator.accounts[].oAuthScopes`; empty leaves the choice to the kubeconfig or the defaults. */
  oAuthScopes: readonly string[];
  env: NodeJS.ProcessEnv;
  /** How to reach a token endpoint (the proxy the cluster's settings choose), by its URL. */
  dispatcherFor: (url: string) => Dispatcher | undefined;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** The token source for the kubeconfig's current user, or undefined when Google has no part in it. */
export function googleTokenSourceFor(
  kc: KubeConfig,
  options: GoogleCredentialsOptions,
): GoogleTokenSource | undefined {
  const user = kc.getCurrentUser();
  const provider = user !== null && isRecord(user.authProvider) ? user.authProvider : undefined;
  const adc = text(options.env.GOOGLE_APPLICATION_CREDENTIALS);
  if (user !== null && provider?.name === 'gcp') {
    const config = isRecord(provider.config) ? provider.config : {};
    if (text(config['cmd-path']) !== undefined) return undefined;
    const file = text(config['credentials-file']) ?? adc;
    if (file === undefined) {
      if (text(config['access-token']) !== undefined) return undefined;
      throw new GoogleCredentialsError(
        `user '${user.name}' signs in with the gcp auth provider, but there is no service-account key to get a token with: set GOOGLE_APPLICATION_CREDENTIALS to a key file, or credentials-file in the auth provider's config`,
      );
    }
    const scopes =
      options.oAuthScopes.length > 0 ? options.oAuthScopes : (configScopes(config) ?? GOOGLE_DEFAULT_SCOPES);
    kc.users = kc.users.map((u) => (u.name === user.name ? withoutAuthProvider(u) : u));
    return source(file, scopes, options);
  }
  if (options.oAuthScopes.length === 0 || (user !== null && hasOwnCredentials(user))) return undefined;
  if (adc === undefined) {
    throw new GoogleCredentialsError(
      `oAuthScopes is set and ${user === null ? 'the context names no user' : `user '${user.name}' has no credentials of its own`}, but GOOGLE_APPLICATION_CREDENTIALS names no service-account key file to get a Google token with`,
    );
  }
  return source(adc, options.oAuthScopes, options);
}

function source(file: string, scopes: readonly string[], options: GoogleCredentialsOptions) {
  const key = readGoogleServiceAccountKey(file);
  const dispatcher = options.dispatcherFor(key.tokenUri);
  return new GoogleTokenSource({ key, scopes, ...(dispatcher === undefined ? {} : { dispatcher }) });
}

/** client-go's `scopes`: absent means the defaults, '' means none. */
function configScopes(config: Record<string, unknown>): string[] | undefined {
  const scopes = config.scopes;
  if (typeof scopes !== 'string') return undefined;
  return scopes
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function hasOwnCredentials(user: User): boolean {
  return Boolean(
    user.token ||
      user.certData ||
      user.certFile ||
      user.exec ||
      user.authProvider ||
      user.username ||
      user.keyData ||
      user.keyFile,
  );
}

function withoutAuthProvider(user: User): User {
  const { authProvider: _replaced, ...rest } = user;
  return rest;
}
