// orchestrator.accounts[].oAuthScopes: a kubeconfig user with the gcp auth provider signs in with a
// Google access token asked for with the account's scopes. The token endpoint runs here and checks
// the signed assertion as Google does (signature with the service account's public key, iss, aud,
// the scopes exactly); the access tokens it answers are service-account tokens of the shared
// cluster, so a real API server accepts them, and each is bound to a Secret, so deleting the Secret
// makes the API server refuse that token. The agent streams with the token; a short-lived token is
// replaced before it is used again; a refused scope list and a failing endpoint fail the account
// with a message naming the endpoint and never the key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOGLE_DEFAULT_SCOPES, KubeHttp, resolveKubeConfig } from '../../../src/kube/index.ts';
import { isRecord } from '../../../src/lib/is-record.ts';
import { startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import {
  type ApiClient,
  createServiceAccountToken,
  sharedCluster,
  sharedClusterClient,
} from '../../cluster/index.ts';
import {
  type IssuedToken,
  newServiceAccount,
  startTokenEndpoint,
  type TokenEndpoint,
  writeKeyFile,
} from '../../support/google-token-endpoint.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { writeConfig } from '../config/config-fixture.ts';
import {
  createNamespace,
  deleteObject,
  msUntil,
  msUntilStored,
  must,
  type RunningAgent,
  settledAccount,
  startAgent,
} from '../watch/watch-fixture.ts';

const NS = 'google-oauth-scopes';
const SA = 'deployer';
const SCOPES = [
  'https://www.googleapis.com/auth/cloud-platform.read-only',
  'https://www.googleapis.com/auth/userinfo.email',
];
const google = newServiceAccount();
let cp: TestControlPlane;
let admin: ApiClient;
let endpoint: TokenEndpoint;
let keyFile: string;
let agent: RunningAgent | undefined;
/** How long the next tokens the endpoint issues live, in seconds, in turn; 3600 when none is queued. */
const lifetimes: number[] = [];
let secrets = 0;

/** A service-account token of the shared cluster, bound to a new Secret (delete it to revoke the token). */
async function issue(): Promise<IssuedToken & { secret: string }> {
  const secret = `token-${++secrets}`;
  const created = must(
    await admin.request('POST', `/api/v1/namespaces/${NS}/secrets`, {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: secret } },
    }),
  ).json;
  const uid = isRecord(created) && isRecord(created.metadata) ? String(created.metadata.uid) : '';
  const token = await createServiceAccountToken(admin, NS, SA, { boundSecret: { name: secret, uid } });
  return { access_token: token, expires_in: lifetimes.shift() ?? 3600, secret };
}

function kubeconfig(providerConfig: Record<string, string>): string {
  const { server, caFile } = sharedCluster();
  return writeConfig(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'gke', cluster: { server, 'certificate-authority': caFile } }],
      users: [{ name: 'google', user: { 'auth-provider': { name: 'gcp', config: providerConfig } } }],
      contexts: [{ name: 'gke', context: { cluster: 'gke', user: 'google' } }],
      'current-context': 'gke',
    }),
    'kubeconfig',
  );
}

beforeAll(async () => {
  admin = sharedClusterClient();
  cp = await startTestControlPlane();
  await createNamespace(admin, NS, ['seen']);
  must(
    await admin.request('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA } },
    }),
  );
  // Authentication is what is under test: the service account may do what the agent needs.
  must(
    await admin.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: NS },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', name: SA, namespace: NS }],
      },
    }),
  );
  endpoint = await startTokenEndpoint({ key: google, scopes: SCOPES, issue });
  keyFile = writeKeyFile(tempDir(), google, endpoint.url);
});

afterAll(async () => {
  await agent?.stop();
  await cp?.close();
  await endpoint?.close();
  await deleteObject(admin, `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${NS}`);
  await deleteObject(admin, `/api/v1/namespaces/${NS}`);
  await admin?.close();
});

describe('oAuthScopes with the gcp auth provider', () => {
  it('gets the agent a Google token asked with exactly the account scopes, and streams with it', async () => {
    endpoint.exchanges.length = 0;
    const running = await startAgent(
      cp,
      {
        orchestrator: {
          accounts: [
            {
              name: 'gke',
              orchConfigFile: kubeconfig({}),
              namespaces: [NS],
              kinds: ['configMap'],
              oAuthScopes: SCOPES,
            },
          ],
        },
      },
      'debug',
      { env: { GOOGLE_APPLICATION_CREDENTIALS: keyFile } },
    );
    agent = running;
    await msUntilStored(cp, 'gke', 'ConfigMap', [`${NS}/seen`], 20_000);
    const account = await settledAccount(cp, 'gke');
    expect(account?.status).toBe('ACTIVE');
    expect(account?.statusMessage).toContain(`Google token for ${google.clientEmail} at ${endpoint.url}`);
    // Discovery, lists and watches started together: one exchange served them all.
    expect(endpoint.exchanges).toHaveLength(1);
    const [exchange] = endpoint.exchanges;
    expect(exchange?.refused).toBeUndefined();
    expect(exchange?.claims.scope).toBe(SCOPES.join(' '));

    const logs = JSON.stringify(running.logs);
    expect(logs).not.toContain(exchange?.token);
    expect(logs).not.toContain(exchange?.form.assertion?.split('.')[2]);
    expect(logs).not.toContain('PRIVATE KEY');
    await running.stop();
    agent = undefined;
  }, 60_000);

  it('replaces a short-lived token before using it again, when the API server would refuse the old one', async () => {
    endpoint.exchanges.length = 0;
    lifetimes.push(4);
    const resolved = resolveKubeConfig(
      {
        serviceAccount: false,
        orchConfigFile: kubeconfig({}),
        context: '',
        insecure: false,
        noProxy: false,
        oAuthScopes: SCOPES,
      },
      { env: { GOOGLE_APPLICATION_CREDENTIALS: keyFile }, noProxy: false },
    );
    const http = new KubeHttp(
      resolved.kubeConfig,
      resolved.server,
      resolved.tokenSource === undefined ? {} : { tokenSource: resolved.tokenSource },
    );
    const whoAmI = async () => {
      const review = await http.request({
        verb: 'create',
        method: 'POST',
        path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      });
      const status = isRecord(review.body) && isRecord(review.body.status) ? review.body.status : {};
      return isRecord(status.userInfo) ? status.userInfo.username : undefined;
    };
    const listed = async () =>
      (await http.request({ verb: 'list', method: 'GET', path: `/api/v1/namespaces/${NS}/configmaps` }))
        .status;

    expect(await whoAmI()).toBe(`system:serviceaccount:${NS}:${SA}`);
    expect(await listed()).toBe(200);
    expect(endpoint.exchanges).toHaveLength(1);
    const first = endpoint.exchanges[0]?.token ?? '';

    // Revoke the first token and wait until the API server refuses it (its cache holds it ~10 s);
    // by then it is past its refresh time (2 s of its 4).
    await deleteObject(admin, `/api/v1/namespaces/${NS}/secrets/token-${secrets}`);
    const withFirst = admin.withToken(first);
    try {
      await msUntil(
        'the first token refused',
        async () => (await withFirst.get(`/api/v1/namespaces/${NS}/configmaps`)).status === 401,
        30_000,
      );
    } finally {
      await withFirst.close();
    }
    expect(await listed()).toBe(200);
    expect(endpoint.exchanges).toHaveLength(2);
    expect(endpoint.exchanges.map((e) => e.refused)).toEqual([undefined, undefined]);
    expect(endpoint.exchanges[1]?.token).not.toBe(first);
    expect(await listed()).toBe(200);
    expect(endpoint.exchanges).toHaveLength(2);
  }, 60_000);

  it('fails the account on a refused scope list or a failing token endpoint, naming the endpoint, never the key', async () => {
    const failing = await startTokenEndpoint({
      key: google,
      scopes: SCOPES,
      issue: () => ({ access_token: 'never', expires_in: 3600 }),
    });
    failing.failWith(503, { error: 'backendError', error_description: 'try again later' });
    try {
      const failingKey = writeKeyFile(tempDir(), google, failing.url);
      const running = await startAgent(
        cp,
        {
          orchestrator: {
            accounts: [
              // No oAuthScopes: client-go's defaults, which this endpoint does not grant.
              {
                name: 'wrong-scopes',
                orchConfigFile: kubeconfig({ 'credentials-file': keyFile }),
                namespaces: [NS],
              },
              {
                name: 'endpoint-down',
                orchConfigFile: kubeconfig({ 'credentials-file': failingKey }),
                namespaces: [NS],
              },
            ],
          },
        },
        'info',
      );
      agent = running;
      const wrong = await settledAccount(cp, 'wrong-scopes');
      expect(wrong?.status).toBe('FAILED');
      expect(wrong?.statusMessage).toBe(
        `the token endpoint ${endpoint.url} refused a Google access token for ${google.clientEmail} with scopes [${GOOGLE_DEFAULT_SCOPES.join(', ')}]: HTTP 400 invalid_scope: Invalid OAuth scope or ID token audience provided: ${GOOGLE_DEFAULT_SCOPES.join(' ')}`,
      );
      const down = await settledAccount(cp, 'endpoint-down');
      expect(down?.status).toBe('FAILED');
      expect(down?.statusMessage).toBe(
        `the token endpoint ${failing.url} refused a Google access token for ${google.clientEmail} with scopes [${GOOGLE_DEFAULT_SCOPES.join(', ')}]: HTTP 503 backendError: try again later`,
      );
      const logs = JSON.stringify(running.logs);
      expect(logs).not.toContain('PRIVATE KEY');
      expect(logs).not.toContain(failing.exchanges[0]?.form.assertion?.split('.')[2] ?? 'no assertion seen');
    } finally {
      await failing.close();
    }
  }, 60_000);
});
