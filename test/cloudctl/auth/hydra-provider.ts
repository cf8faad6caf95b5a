// Ory Hydra as the OpenID Connect provider of the sign-in tests: built from its Go module
// (test/cloudctl/auth/hydra, by npm test's pretest), run in memory (`DSN=memory`, `serve all --dev`)
// with JWT access tokens, through the reaper so it cannot outlive the test process. The test plays
// the parts Hydra leaves to others: the login and consent endpoints (a small HTTP server here that
// accepts a known user and puts the user's groups into the token), and the browser that follows the
// redirects of the authorization-code flow with PKCE.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { locateBinaryCache, resolveBinaries } from '../../cluster/binary-cache.ts';
import { ClusterProcess } from '../../cluster/cluster-process.ts';
import { freePort } from '../../cluster/free-port.ts';
import { goBinary, testGoCommand } from '../../tools/go-binary.ts';

export interface HydraClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export interface HydraTokens {
  accessToken: string;
  idToken: string;
}

/** The users the login endpoint accepts, by name, with their groups. */
export type Directory = Record<string, readonly string[]>;

export class Hydra {
  readonly #process: ClusterProcess;
  readonly #loginServer: Server;
  readonly publicUrl: string;
  readonly adminUrl: string;
  /** The issuer exactly as Hydra's discovery document and tokens say it. */
  issuer = '';
  /** Whom the login app signs in when the request hints no one (a browser's sign-in). */
  readonly browserUser: { name: string };

  private constructor(
    process: ClusterProcess,
    loginServer: Server,
    publicUrl: string,
    adminUrl: string,
    browserUser: { name: string },
  ) {
    this.browserUser = browserUser;
    this.#process = process;
    this.#loginServer = loginServer;
    this.publicUrl = publicUrl;
    this.adminUrl = adminUrl;
  }

  /** `publicHost`: the host name of the issuer URL; `localhost` puts Hydra on another site than 127.0.0.1. */
  static async start(dir: string, directory: Directory, publicHost = '127.0.0.1'): Promise<Hydra> {
    const { moduleDir, name, tags } = testGoCommand('hydra');
    const binary = await goBinary(moduleDir, name, tags);
    const reaper = (await resolveBinaries(await locateBinaryCache())).path('reaper');
    await mkdir(dir, { recursive: true });
    const [publicPort, adminPort] = [await freePort(), await freePort()];
    const publicUrl = `http://${publicHost}:${publicPort}`;
    const adminUrl = `http://127.0.0.1:${adminPort}`;
    const browserUser = { name: '' };
    const loginServer = await startLoginServer(adminUrl, directory, browserUser);
    const loginUrl = `http://127.0.0.1:${(loginServer.address() as AddressInfo).port}`;
    const config = join(dir, 'hydra.yaml');
    await writeFile(config, hydraConfig({ publicPort, adminPort, publicUrl, loginUrl }));
    const process = await ClusterProcess.start(
      {
        name: 'hydra',
        binary,
        logFile: join(dir, 'hydra.log'),
        args: ['serve', 'all', '--dev', '--sqa-opt-out', '--config', config],
        env: { HOME: dir, PATH: '/usr/bin:/bin' },
      },
      reaper,
    );
    const hydra = new Hydra(process, loginServer, publicUrl, adminUrl, browserUser);
    try {
      await process.ready(
        'health',
        async () => ((await fetch(`${adminUrl}/health/ready`).catch(() => undefined))?.ok ? true : undefined),
        60_000,
      );
      const discovery = await getJson(`${publicUrl}/.well-known/openid-configuration`);
      hydra.issuer = String(discovery.issuer);
    } catch (error) {
      await hydra.stop();
      throw error;
    }
    return hydra;
  }

  /** An authorization-code client allowed to ask for tokens for `audience`. */
  async createClient(audience: string, redirectUri: string): Promise<HydraClient> {
    const created = await adminCall(this.adminUrl, 'POST', '/admin/clients', {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: [redirectUri],
      scope: 'openid offline',
      audience: [audience],
      token_endpoint_auth_method: 'client_secret_post',
    });
    return { clientId: String(created.client_id), clientSecret: String(created.client_secret), redirectUri };
  }

  /** Sets how long the client's access tokens from the code flow live (Go duration: `1s`, `1h`). */
  async setAccessTokenLifespan(client: HydraClient, lifespan: string): Promise<void> {
    await adminCall(this.adminUrl, 'PUT', `/admin/clients/${client.clientId}/lifespans`, {
      authorization_code_grant_access_token_lifespan: lifespan,
      authorization_code_grant_id_token_lifespan: lifespan,
      authorization_code_grant_refresh_token_lifespan: '1h',
    });
  }

  /** Adds a new key to the set that signs access tokens: Hydra signs with it from now on. */
  async rotateAccessTokenKey(kid: string): Promise<void> {
    await adminCall(this.adminUrl, 'POST', '/admin/keys/hydra.jwt.access-token', {
      alg: 'RS256',
      kid,
      use: 'sig',
    });
  }

  /** Signs `user` in as a browser would, for tokens meant for `audience`. */
  async signIn(client: HydraClient, user: string, audience: string): Promise<HydraTokens> {
    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      scope: 'openid',
      state: randomBytes(12).toString('base64url'),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      audience,
      login_hint: user,
    });
    const redirected = await followRedirects(`${this.publicUrl}/oauth2/auth?${query}`, client.redirectUri);
    const code = redirected.searchParams.get('code');
    if (code === null) throw new Error(`no code in the redirect: ${redirected.searchParams}`);
    const tokens = await fetch(`${this.publicUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: client.redirectUri,
        client_id: client.clientId,
        client_secret: client.clientSecret,
        code_verifier: verifier,
      }),
    });
    const body = (await tokens.json()) as Record<string, unknown>;
    if (!tokens.ok) throw new Error(`token exchange: HTTP ${tokens.status}: ${JSON.stringify(body)}`);
    return { accessToken: String(body.access_token), idToken: String(body.id_token) };
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.#loginServer.close(() => resolve()));
    await this.#process.stop();
  }
}

function hydraConfig(o: { publicPort: number; adminPort: number; publicUrl: string; loginUrl: string }) {
  return `dsn: memory
serve:
  public: { host: 127.0.0.1, port: ${o.publicPort} }
  admin: { host: 127.0.0.1, port: ${o.adminPort} }
  # Its login CSRF cookies must come back on the top-level redirects from the login app (plain http).
  cookies: { same_site_mode: Lax }
urls:
  self: { issuer: ${o.publicUrl} }
  login: ${o.loginUrl}/login
  consent: ${o.loginUrl}/consent
secrets:
  system: [${randomBytes(24).toString('hex')}]
strategies:
  access_token: jwt
oauth2:
  # Custom claims of the access token go under "ext" unless listed here.
  allowed_top_level_claims: [groups]
log:
  level: warn
`;
}

async function getJson(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}: ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

async function adminCall(
  adminUrl: string,
  method: 'POST' | 'PUT',
  path: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${adminUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`Hydra ${method} ${path}: HTTP ${response.status}: ${text}`);
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

/** The login and consent app: accepts the user the authorization request hints, with its groups. */
async function startLoginServer(
  adminUrl: string,
  directory: Directory,
  browserUser: { name: string },
): Promise<Server> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const accept = async (): Promise<string> => {
      const login = url.searchParams.get('login_challenge');
      if (url.pathname === '/login' && login !== null) {
        const requested = await getJson(
          `${adminUrl}/admin/oauth2/auth/requests/login?login_challenge=${login}`,
        );
        const hinted = (requested.oidc_context as { login_hint?: string } | undefined)?.login_hint;
        const hint = hinted === undefined || hinted === '' ? browserUser.name : hinted;
        if (directory[hint] === undefined) throw new Error(`no such user: ${hint}`);
        const accepted = await adminCall(
          adminUrl,
          'PUT',
          `/admin/oauth2/auth/requests/login/accept?login_challenge=${login}`,
          { subject: hint, remember: false },
        );
        return String(accepted.redirect_to);
      }
      const consent = url.searchParams.get('consent_challenge');
      if (url.pathname === '/consent' && consent !== null) {
        const requested = await getJson(
          `${adminUrl}/admin/oauth2/auth/requests/consent?consent_challenge=${consent}`,
        );
        const groups = directory[String(requested.subject)] ?? [];
        const accepted = await adminCall(
          adminUrl,
          'PUT',
          `/admin/oauth2/auth/requests/consent/accept?consent_challenge=${consent}`,
          {
            grant_scope: requested.requested_scope,
            grant_access_token_audience: requested.requested_access_token_audience,
            remember: false,
            session: { access_token: { groups }, id_token: { groups } },
          },
        );
        return String(accepted.redirect_to);
      }
      throw new Error(`unexpected ${url.pathname}`);
    };
    accept().then(
      (location) => response.writeHead(302, { location }).end(),
      (error: unknown) => response.writeHead(500).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** Follows redirects as a browser does, cookies included, until one goes to `stopAt`. */
export async function followRedirects(start: string, stopAt: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(stopAt)) return new URL(url);
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, { redirect: 'manual', headers: cookie === '' ? {} : { cookie } });
    for (const set of response.headers.getSetCookie()) {
      const [pair = ''] = set.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || location === null) {
      throw new Error(`${url}: HTTP ${response.status} without a redirect: ${await response.text()}`);
    }
    url = new URL(location, url).toString();
  }
  throw new Error('too many redirects');
}
