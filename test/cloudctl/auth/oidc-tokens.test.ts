// Bearer JWTs from an OpenID Connect provider, over real HTTP against a real control plane and a
// local issuer on a loopback port: a token's groups become roles and account permissions apply as
// they do to static users; each kind of bad token gets a 401 that names its problem without repeating
// the token; a rotated key is picked up without a restart, and unknown key ids do not make cloudctl
// hammer the provider. (oidc-hydra.test.ts runs the same API against Ory Hydra.)
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENT_TOKEN,
  helloFor,
  startTestControlPlane,
  TestAgent,
  type TestControlPlane,
  USERS,
} from '../harness.ts';
import { apiClient } from '../http-client.ts';
import { LocalIssuer, signingKey } from './local-issuer.ts';

let issuer: LocalIssuer;
let cp: TestControlPlane;
const agents: TestAgent[] = [];

/** Accounts team-a and team-b, each readable by its own role, writable by ops. */
async function connectAgent(plane: TestControlPlane): Promise<void> {
  const agent = new TestAgent(plane.address, { token: AGENT_TOKEN });
  agents.push(agent);
  const hello = helloFor('agent-1', []);
  await agent.connect({
    ...hello,
    accounts: ['team-a', 'team-b'].map((name) => ({
      name,
      permissions: { read: [`${name}-readers`], write: ['ops'] },
      apiServerHost: 'https://127.0.0.1:6443',
      kubernetesVersion: 'v1.33.1',
    })),
  });
}

function oidcConfig(extra: Record<string, unknown> = {}) {
  return {
    auth: {
      adminRoles: ['admins'],
      oidc: { issuer: issuer.url, audience: 'cloudctl-api', jwksRefetchSeconds: 0, ...extra },
    },
  };
}

beforeAll(async () => {
  issuer = await LocalIssuer.start();
  cp = await startTestControlPlane(oidcConfig());
  await connectAgent(cp);
});

afterAll(async () => {
  for (const agent of agents) agent.close();
  await cp?.close();
  await issuer?.close();
});

const account = (token: string, name: string) =>
  apiClient(cp.url, token).get(`/agents/orchestrator/accounts/${name}`);

describe('a token from the configured provider', () => {
  it('reads the accounts its groups may read and no other, as a static user would', async () => {
    const token = await issuer.token({ sub: 'alice', groups: ['team-a-readers', 'staff'] });
    expect((await account(token, 'team-a')).status).toBe(200);
    expect((await account(token, 'team-b')).status).toBe(403);
    expect((await account(token, 'no-such')).status).toBe(404);
    const listed = await apiClient(cp.url, token).get('/credentials');
    expect(listed.status).toBe(200);
    expect((listed.body as Array<{ name: string }>).map((a) => a.name).sort()).toEqual(['team-a']);
  });

  it('takes a single group written as a string, and an admin group passes every check', async () => {
    expect((await account(await issuer.token({ groups: 'team-b-readers' }), 'team-b')).status).toBe(200);
    const admin = await issuer.token({ sub: 'root-by-oidc', groups: ['admins'] });
    expect((await account(admin, 'team-a')).status).toBe(200);
    expect((await account(admin, 'team-b')).status).toBe(200);
  });

  it('acts under the name its sub claim gives, as the request log shows', async () => {
    const token = await issuer.token({ sub: 'alice@example.org', groups: ['team-a-readers'] });
    expect((await account(token, 'team-a')).status).toBe(200);
    expect(cp.logs.filter((line) => line.msg === 'request').map((line) => line.user)).toContain(
      'alice@example.org',
    );
  });

  it('leaves static token users working beside it', async () => {
    expect((await account(USERS.dev.token, 'team-a')).status).toBe(403);
    expect((await account(USERS.admin.token, 'team-a')).status).toBe(200);
  });
});

describe('a token cloudctl must refuse', () => {
  async function refusal(token: string) {
    const answer = await account(token, 'team-a');
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="cloudctl"');
    // Neither the token nor any part of it comes back.
    for (const part of token.split('.')) {
      expect(JSON.stringify(answer.body)).not.toContain(part);
      expect(JSON.stringify(cp.logs)).not.toContain(part);
    }
    return answer.body.message as string;
  }

  it('names another issuer', async () => {
    const other = await LocalIssuer.start();
    try {
      const token = await other.token({ groups: ['team-a-readers'] });
      expect(await refusal(token)).toBe(`the bearer token was issued by another issuer than ${issuer.url}`);
    } finally {
      await other.close();
    }
  });

  it('names an expired token, beyond the clock skew', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await issuer.token({ groups: ['team-a-readers'], iat: now - 600, exp: now - 120 });
    expect(await refusal(token)).toBe('the bearer token has expired (exp)');
  });

  it('accepts a token expired for less than the clock skew (60 s)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await issuer.token({ groups: ['team-a-readers'], iat: now - 600, exp: now - 30 });
    expect((await account(token, 'team-a')).status).toBe(200);
  });

  it('names a token not valid yet', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await issuer.token({ nbf: now + 600, iat: now, exp: now + 900 });
    expect(await refusal(token)).toBe('the bearer token is not valid yet (nbf)');
  });

  it('names a bad signature: re-signed with a stray key under the published key id', async () => {
    const stray = await signingKey(issuer.keys[0]?.kid ?? 'key-1');
    const token = await issuer.token({ groups: ['team-a-readers'] }, { key: stray });
    expect(await refusal(token)).toBe("the bearer token's signature does not verify with the provider's key");
  });

  it('names a signature made with a key the provider does not publish', async () => {
    const token = await issuer.token({ groups: ['team-a-readers'] }, { key: await signingKey('stray') });
    expect(await refusal(token)).toBe(
      "the bearer token's signature was made with a key the provider does not publish",
    );
  });

  it('names a token whose signature was tampered with', async () => {
    const [header, payload] = (await issuer.token({ groups: ['team-a-readers'] })).split('.');
    const forged = Buffer.from(
      JSON.stringify({
        iss: issuer.url,
        aud: 'cloudctl-api',
        sub: 'mallory',
        groups: ['admins'],
        exp: 4102444800,
      }),
    ).toString('base64url');
    expect(payload).not.toBe(forged);
    const token = `${header}.${forged}.${(await issuer.token({})).split('.')[2]}`;
    expect(await refusal(token)).toBe("the bearer token's signature does not verify with the provider's key");
  });

  it('names a wrong audience', async () => {
    const token = await issuer.token({ groups: ['team-a-readers'] }, { audience: 'another-api' });
    expect(await refusal(token)).toBe(
      'the bearer token is not meant for this API: its audience (aud) does not include cloudctl-api',
    );
  });

  it('names an algorithm it does not accept', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ iss: issuer.url, aud: 'cloudctl-api', sub: 'x', exp: now + 60 })
      .setProtectedHeader({ alg: 'HS256', kid: 'key-1' })
      .sign(new TextEncoder().encode('a-shared-secret-that-is-long-enough!'));
    expect(await refusal(token)).toBe(
      'the bearer token is signed with an algorithm cloudctl does not accept (it accepts RS256, ES256)',
    );
  });
});

describe('key rotation', () => {
  it('accepts a token signed with a key the provider published after cloudctl started', async () => {
    expect((await account(await issuer.token({ groups: ['team-a-readers'] }), 'team-a')).status).toBe(200);
    const fetches = issuer.jwksFetches;
    await issuer.rotate('key-2');
    const token = await issuer.token({ groups: ['team-a-readers'] });
    expect((await account(token, 'team-a')).status).toBe(200);
    expect(issuer.jwksFetches).toBe(fetches + 1);
    // The old key stays published for the tokens it signed, and they stay good.
    const old = await issuer.token({ groups: ['team-a-readers'] }, { key: issuer.keys[1] });
    expect((await account(old, 'team-a')).status).toBe(200);
  });

  it('fetches the key set at most once per refetch period however many unknown key ids come', async () => {
    const limited = await startTestControlPlane(oidcConfig({ jwksRefetchSeconds: 30 }));
    try {
      await connectAgent(limited);
      const get = (token: string) =>
        apiClient(limited.url, token).get('/agents/orchestrator/accounts/team-a');
      expect((await get(await issuer.token({ groups: ['team-a-readers'] }))).status).toBe(200);
      const fetches = issuer.jwksFetches;
      for (const kid of ['forged-1', 'forged-2', 'forged-3', 'forged-4']) {
        const token = await issuer.token({ groups: ['team-a-readers'] }, { key: await signingKey(kid) });
        expect((await get(token)).status).toBe(401);
      }
      // The key set was fetched moments ago: none of them makes cloudctl fetch it again.
      expect(issuer.jwksFetches).toBe(fetches);
    } finally {
      await limited.close();
    }
  });
});

describe('auth.oidc.groupRoles', () => {
  it('grants only the roles the mapping gives, so unmapped groups grant nothing', async () => {
    const mapped = await startTestControlPlane(
      oidcConfig({ groupRoles: { 'eng-team-a': ['team-a-readers'] }, usernameClaim: 'email' }),
    );
    try {
      await connectAgent(mapped);
      const get = (token: string, name: string) =>
        apiClient(mapped.url, token).get(`/agents/orchestrator/accounts/${name}`);
      const token = await issuer.token({ email: 'bo@example.org', groups: ['eng-team-a', 'team-b-readers'] });
      expect((await get(token, 'team-a')).status).toBe(200);
      expect((await get(token, 'team-b')).status).toBe(403);
      const nameless = await issuer.token({ groups: ['eng-team-a'] });
      expect((await get(nameless, 'team-a')).body.message).toBe(
        'the bearer token has no email claim to name the user',
      );
    } finally {
      await mapped.close();
    }
  });
});

describe('auth.oidc in the config', () => {
  it('refuses a plain-http issuer that is not on loopback', async () => {
    await expect(
      startTestControlPlane({ auth: { oidc: { issuer: 'http://idp.example.org', audience: 'a' } } }),
    ).rejects.toThrow(/auth\.oidc\.issuer.*https/s);
  });
});
