// Which kubeconfig users get a Google token with the account's oAuthScopes (google-credentials.ts),
// through resolveKubeConfig as the agent calls it. Which scopes were asked is read where it matters:
// the token endpoint accepts only the scopes a case expects.
import { afterEach, describe, expect, it } from 'vitest';
import { GOOGLE_DEFAULT_SCOPES, resolveKubeConfig } from '../../src/kube/index.ts';
import { writeConfig } from '../agent/config/config-fixture.ts';
import {
  newServiceAccount,
  startTokenEndpoint,
  type TokenEndpoint,
  writeKeyFile,
} from '../support/google-token-endpoint.ts';
import { tempDir } from '../support/temp-dir.ts';

const READ_ONLY = ['https://www.googleapis.com/auth/cloud-platform.read-only'];
const account = newServiceAccount();
let endpoint: TokenEndpoint | undefined;

afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

function kubeconfig(user: Record<string, unknown>): string {
  return writeConfig(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    }),
    'kubeconfig',
  );
}

async function keyFileExpecting(scopes: readonly string[]): Promise<string> {
  endpoint = await startTokenEndpoint({
    key: account,
    scopes,
    issue: () => ({ access_token: 'issued', expires_in: 3600 }),
  });
  return writeKeyFile(tempDir(), account, endpoint.url);
}

function resolve(file: string, oAuthScopes: string[], env: NodeJS.ProcessEnv = {}) {
  return resolveKubeConfig(
    {
      serviceAccount: false,
      orchConfigFile: file,
      context: '',
      insecure: false,
      noProxy: false,
      oAuthScopes,
    },
    { env, noProxy: false },
  );
}

describe('Google credentials of a kubeconfig user', () => {
  it('gives a gcp user a token with the account scopes, from GOOGLE_APPLICATION_CREDENTIALS, instead of client-node gcp code', async () => {
    const key = await keyFileExpecting(READ_ONLY);
    const resolved = resolve(kubeconfig({ 'auth-provider': { name: 'gcp', config: {} } }), READ_ONLY, {
      GOOGLE_APPLICATION_CREDENTIALS: key,
    });
    expect(await resolved.tokenSource?.token()).toBe('issued');
    expect(resolved.kubeConfig.getCurrentUser()?.authProvider).toBeUndefined();
    expect(resolved.source).toContain(`Google token for ${account.clientEmail} at ${endpoint?.url}`);
  });

  it('takes the key from the provider credentials-file, the provider scopes when the account has none, and client-go defaults without either', async () => {
    const configured = ['https://www.googleapis.com/auth/userinfo.email', 'openid'];
    let key = await keyFileExpecting(configured);
    const withScopes = { name: 'gcp', config: { 'credentials-file': key, scopes: configured.join(',') } };
    expect(await resolve(kubeconfig({ 'auth-provider': withScopes }), []).tokenSource?.token()).toBe(
      'issued',
    );
    await endpoint?.close();

    key = await keyFileExpecting(GOOGLE_DEFAULT_SCOPES);
    const plain = { name: 'gcp', config: { 'credentials-file': key } };
    expect(await resolve(kubeconfig({ 'auth-provider': plain }), []).tokenSource?.token()).toBe('issued');
  });

  it('leaves a gcp user with cmd-path, or with a cached access-token and no key, to client-node', () => {
    const command = {
      name: 'gcp',
      config: { 'cmd-path': '/usr/bin/gcloud', 'cmd-args': 'config config-helper' },
    };
    const env = { GOOGLE_APPLICATION_CREDENTIALS: '/nonexistent.json' };
    const resolved = resolve(kubeconfig({ 'auth-provider': command }), READ_ONLY, env);
    expect(resolved.tokenSource).toBeUndefined();
    expect(resolved.kubeConfig.getCurrentUser()?.authProvider?.name).toBe('gcp');
    const cached = { name: 'gcp', config: { 'access-token': 'ya29.cached' } };
    expect(resolve(kubeconfig({ 'auth-provider': cached }), READ_ONLY).tokenSource).toBeUndefined();
  });

  it('fails a gcp user with nothing to get a token with, saying what to set', () => {
    expect(() => resolve(kubeconfig({ 'auth-provider': { name: 'gcp' } }), [])).toThrow(
      "user 'u' signs in with the gcp auth provider, but there is no service-account key to get a token with: set GOOGLE_APPLICATION_CREDENTIALS to a key file, or credentials-file in the auth provider's config",
    );
  });

  it('gives a user without credentials a Google token only when the account sets oAuthScopes', async () => {
    const key = await keyFileExpecting(READ_ONLY);
    const env = { GOOGLE_APPLICATION_CREDENTIALS: key };
    expect(resolve(kubeconfig({}), [], env).tokenSource).toBeUndefined();
    expect(await resolve(kubeconfig({}), READ_ONLY, env).tokenSource?.token()).toBe('issued');
    expect(() => resolve(kubeconfig({}), READ_ONLY, {})).toThrow(
      "oAuthScopes is set and user 'u' has no credentials of its own, but GOOGLE_APPLICATION_CREDENTIALS names no service-account key file",
    );
    // A user that signs in otherwise keeps its own credentials.
    expect(resolve(kubeconfig({ token: 'static' }), READ_ONLY, env).tokenSource).toBeUndefined();
  });
});
