// Sign-in with a real OpenID Connect provider, Ory Hydra, over real sockets: people sign in with the
// authorization-code flow (PKCE), their groups go into Hydra's JWT access token, and cloudctl lets
// them read the accounts those groups may read and no other. Tokens from a second Hydra, expired
// ones, re-signed ones and ID tokens (meant for the client, not the API) get a 401 naming the
// problem; a key Hydra adds to its signing set is used without restarting cloudctl.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENT_TOKEN,
  helloFor,
  startTestControlPlane,
  TestAgent,
  type TestControlPlane,
} from '../harness.ts';
import { apiClient } from '../http-client.ts';
import { Hydra, type HydraClient } from './hydra-provider.ts';
import { signingKey } from './local-issuer.ts';

const AUDIENCE = 'cloudctl-api';
/** How far past a token's exp cloudctl still takes it (auth.oidc.clockSkewSeconds). */
const CLOCK_SKEW_SECONDS = 1;
/** The access-token lifetime of the client whose token is let expire. */
const TOKEN_LIFESPAN_SECONDS = 10;
const USERS = { alice: ['team-a-readers'], bob: ['team-b-readers', 'team-a-writers'] } as const;

let dir: string;
let hydra: Hydra;
let client: HydraClient;
let cp: TestControlPlane;
let agent: TestAgent;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'oidc-hydra-'));
  hydra = await Hydra.start(join(dir, 'hydra'), USERS);
  client = await hydra.createClient(AUDIENCE, 'http://127.0.0.1:1/callback');
  cp = await startTestControlPlane({
    auth: {
      adminRoles: ['admins'],
      oidc: {
        issuer: hydra.issuer,
        audience: AUDIENCE,
        clockSkewSeconds: CLOCK_SKEW_SECONDS,
        jwksRefetchSeconds: 0,
      },
    },
  });
  agent = new TestAgent(cp.address, { token: AGENT_TOKEN });
  await agent.connect({
    ...helloFor('agent-1', []),
    accounts: ['team-a', 'team-b'].map((name) => ({
      name,
      permissions: { read: [`${name}-readers`], write: [`${name}-writers`] },
      apiServerHost: 'https://127.0.0.1:6443',
      kubernetesVersion: 'v1.33.1',
    })),
  });
}, 120_000);

afterAll(async () => {
  agent?.close();
  await cp?.close();
  await hydra?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const status = async (token: string, account: string) =>
  (await apiClient(cp.url, token).get(`/agents/orchestrator/accounts/${account}`)).status;

async function refusal(token: string): Promise<string> {
  const answer = await apiClient(cp.url, token).get('/agents/orchestrator/accounts/team-a');
  expect(answer.status).toBe(401);
  expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="cloudctl"');
  for (const part of token.split('.')) {
    expect(JSON.stringify(answer.body)).not.toContain(part);
    expect(JSON.stringify(cp.logs)).not.toContain(part);
  }
  return answer.body.message;
}

describe('a person signed in at Hydra', () => {
  it('gets an access token carrying the groups, which reads the accounts they may read only', async () => {
    const { accessToken } = await hydra.signIn(client, 'alice', AUDIENCE);
    expect(decodeJwt(accessToken)).toMatchObject({
      iss: hydra.issuer,
      sub: 'alice',
      groups: ['team-a-readers'],
    });
    expect(await status(accessToken, 'team-a')).toBe(200);
    expect(await status(accessToken, 'team-b')).toBe(403);
    const listed = await apiClient(cp.url, accessToken).get('/credentials');
    expect((listed.body as Array<{ name: string }>).map((a) => a.name)).toEqual(['team-a']);
  });

  it('reads through a WRITE role too, as static users do', async () => {
    const { accessToken } = await hydra.signIn(client, 'bob', AUDIENCE);
    expect(await status(accessToken, 'team-a')).toBe(200);
    expect(await status(accessToken, 'team-b')).toBe(200);
  });
});

describe('tokens cloudctl refuses', () => {
  it('names another issuer: a second Hydra', async () => {
    const other = await Hydra.start(join(dir, 'other-hydra'), USERS);
    try {
      const otherClient = await other.createClient(AUDIENCE, 'http://127.0.0.1:1/callback');
      const { accessToken } = await other.signIn(otherClient, 'alice', AUDIENCE);
      expect(await refusal(accessToken)).toBe(
        `the bearer token was issued by another issuer than ${hydra.issuer}`,
      );
    } finally {
      await other.stop();
    }
  }, 90_000);

  it('names an expired token', async () => {
    const shortLived = await hydra.createClient(AUDIENCE, 'http://127.0.0.1:1/callback');
    // Ample for a first request right after sign-in, however busy the machine; short enough to wait out.
    await hydra.setAccessTokenLifespan(shortLived, `${TOKEN_LIFESPAN_SECONDS}s`);
    const { accessToken } = await hydra.signIn(shortLived, 'alice', AUDIENCE);
    const { iat, exp } = decodeJwt(accessToken);
    if (iat === undefined || exp === undefined) throw new Error('the access token has no iat or exp');
    // The client's lifespan, as Hydra writes it: exp rounded to the second, iat cut to it.
    expect(exp - iat).toBeGreaterThanOrEqual(TOKEN_LIFESPAN_SECONDS);
    expect(exp - iat).toBeLessThanOrEqual(TOKEN_LIFESPAN_SECONDS + 1);
    // In its lifetime it works: the refusal below is for its age, nothing else.
    expect(await status(accessToken, 'team-a')).toBe(200);
    // Expired for cloudctl once the clock is past exp by the skew cloudctl allows (the same clock:
    // cloudctl runs in this process, Hydra on this machine).
    const expiredAt = (exp + CLOCK_SKEW_SECONDS) * 1000;
    while (Date.now() < expiredAt) await sleep(expiredAt - Date.now());
    expect(await refusal(accessToken)).toBe('the bearer token has expired (exp)');
  }, 60_000);

  it("names a bad signature: the claims re-signed with another key under Hydra's key id", async () => {
    const { accessToken } = await hydra.signIn(client, 'alice', AUDIENCE);
    const { kid } = decodeProtectedHeader(accessToken);
    const stray = await signingKey(kid ?? '');
    const resigned = await new SignJWT({ ...decodeJwt(accessToken), groups: ['admins'] })
      .setProtectedHeader({ alg: 'RS256', kid: stray.kid, typ: 'JWT' })
      .sign(stray.privateKey);
    expect(await refusal(resigned)).toBe(
      "the bearer token's signature does not verify with the provider's key",
    );
  });

  it('names a wrong audience: the ID token is meant for the client, not the API', async () => {
    const { idToken } = await hydra.signIn(client, 'alice', AUDIENCE);
    expect(decodeJwt(idToken).aud).toEqual([client.clientId]);
    expect(await refusal(idToken)).toBe(
      `the bearer token is not meant for this API: its audience (aud) does not include ${AUDIENCE}`,
    );
  });
});

describe('key rotation at Hydra', () => {
  it('accepts a token signed with the new key without restarting cloudctl', async () => {
    const before = await hydra.signIn(client, 'alice', AUDIENCE);
    expect(await status(before.accessToken, 'team-a')).toBe(200);
    await hydra.rotateAccessTokenKey('rotated-key-1');
    const after = await hydra.signIn(client, 'alice', AUDIENCE);
    expect(decodeProtectedHeader(after.accessToken).kid).toBe('rotated-key-1');
    expect(await status(after.accessToken, 'team-a')).toBe(200);
    expect(await status(after.accessToken, 'team-b')).toBe(403);
  });
});
