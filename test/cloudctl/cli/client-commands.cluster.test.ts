// cloudctl's client commands as a person runs them: the binary as a process against `cloudctl serve`
// and `orch-agent run` on the shared cluster. An application `shop` with two versions (a Deployment
// whose image changed once, so two ReplicaSets) on the fake kubelet's node, whose container prints a
// known line. Each command's output is checked by its content; login writes a 0600 contexts file that
// later commands use; errors name their cause and exit 1, usage errors exit 2. `login --sso` signs in
// at a real Ory Hydra (the provider of the sign-in tests), the test playing the browser. `get --watch`
// and `deploy -f` follow the real GET /watch.
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../cluster/free-port.ts';
import {
  type ApiClient as ClusterClient,
  podLogAnnotations,
  sharedCluster,
  sharedClusterClient,
} from '../../cluster/index.ts';
import { runCloudctl } from '../../support/cloudctl-run.ts';
import { TestSystem } from '../../support/processes.ts';
import { followRedirects, Hydra } from '../auth/hydra-provider.ts';
import { startTestControlPlane } from '../harness.ts';

const NS = 'cli-e2e';
const ACCOUNT = 'cli-e2e';
const TOKENS = {
  agent: 'agent-token-cli-e2e-7d21',
  dev: 'dev-token-cli-e2e-51c3',
  outsider: 'outsider-cli-e2e-9a0e',
};
const WEB_LOG = 'shop listening on :8080\nGET /healthz 200 1ms\n';
const BIN = join(import.meta.dirname, '../../../bin/cloudctl.js');

let dir: string;
let home: string;
let cluster: ClusterClient;
let system: TestSystem;
let hydra: Hydra;
/** The public client `login --sso` signs in as (auth.oidc.cli). */
let cliClientId: string;
const AUDIENCE = 'cloudctl-cli-e2e';

/** The binary with only the environment given (plus PATH): no token or server leaks in from the runner. */
const cloudctl = (args: string[], env: Record<string, string> = {}) => runCloudctl(args, { home, env });

const asDev = () => ({ CLOUDCTL_URL: system.url, CLOUDCTL_TOKEN: TOKENS.dev });

function deployment(image: string) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'shop', annotations: { 'moniker.spinnaker.io/application': 'shop' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'shop' } },
      template: {
        metadata: { labels: { app: 'shop' }, annotations: podLogAnnotations({ web: WEB_LOG }) },
        spec: {
          nodeName: sharedCluster().fakeKubelet.nodeName,
          containers: [{ name: 'web', image }],
        },
      },
    },
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-cli-e2e-'));
  home = join(dir, 'home');
  cluster = sharedClusterClient();
  // alice's group is the account's reader and writer role.
  hydra = await Hydra.start(join(dir, 'hydra'), { alice: ['dev'] });
  cliClientId = await createPublicClient(hydra, AUDIENCE);
  system = await TestSystem.startCloudctl({
    dir,
    agent: { id: 'cli-e2e-agent', token: TOKENS.agent },
    users: [
      { name: 'dana', token: TOKENS.dev, roles: ['dev'] },
      { name: 'otto', token: TOKENS.outsider, roles: ['outsiders'] },
    ],
    account: {
      name: ACCOUNT,
      kubeconfig: sharedCluster().kubeconfigPath,
      namespaces: [NS],
      kinds: ['deployment', 'replicaSet', 'pod', 'service'],
      read: ['dev'],
      write: ['dev'],
    },
    config: [
      'auth:',
      '  oidc:',
      `    issuer: ${hydra.issuer}`,
      `    audience: ${AUDIENCE}`,
      `    cli: { clientId: ${cliClientId} }`,
    ].join('\n'),
  });
  await cluster.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  const created = await cluster.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
    body: deployment('registry.example/shop:1'),
  });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  await system.startAgent();
  // The second version: a new image makes a second ReplicaSet; the first scales to 0.
  await vi.waitFor(
    async () => {
      const replaced = await cluster.request('PUT', `/apis/apps/v1/namespaces/${NS}/deployments/shop`, {
        body: {
          ...deployment('registry.example/shop:2'),
          metadata: {
            ...deployment('').metadata,
            resourceVersion: (
              (await cluster.get(`/apis/apps/v1/namespaces/${NS}/deployments/shop`)).json as {
                metadata: { resourceVersion: string };
              }
            ).metadata.resourceVersion,
          },
        },
      });
      if (replaced.status !== 200) throw new Error(`replace: ${replaced.status}`);
    },
    { timeout: 20_000, interval: 500 },
  );
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await hydra?.stop();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/**
 * A public client (no secret, PKCE only) with the loopback redirect registered without a port: the
 * provider takes any port on it (RFC 8252 section 7.3), as `login --sso` listens on a free one.
 */
async function createPublicClient(provider: Hydra, audience: string): Promise<string> {
  const response = await fetch(`${provider.adminUrl}/admin/clients`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: ['http://127.0.0.1/callback'],
      scope: 'openid',
      audience: [audience],
      token_endpoint_auth_method: 'none',
    }),
  });
  const body = (await response.json()) as { client_id?: string };
  if (!response.ok || body.client_id === undefined) throw new Error(`Hydra client: ${response.status}`);
  return body.client_id;
}

/** The binary as a long-running process (login --sso, get --watch), its output kept as it comes. */
function cloudctlProcess(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: join(home, 'config'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output, exited };
}

/** Rows of a kubectl-style table: header cells and each row's cells, split on the column gaps. */
function table(stdout: string): string[][] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/ {3,}/));
}

describe('cloudctl login and contexts', () => {
  it('stores server and token in a 0600 file after checking the token; later commands use it', async () => {
    const login = await cloudctl(['login', system.url, '--context', 'e2e'], { CLOUDCTL_TOKEN: TOKENS.dev });
    expect(login).toMatchObject({ code: 0, stderr: '' });
    expect(login.stdout).toContain(`Logged in to ${system.url}; context 'e2e' is current`);
    const file = join(home, 'config', 'cloudctl', 'config');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(home, 'config', 'cloudctl'))).mode & 0o777).toBe(0o700);
    expect(load(await readFile(file, 'utf8'))).toEqual({
      'current-context': 'e2e',
      contexts: [{ name: 'e2e', server: system.url, token: TOKENS.dev, via: 'token' }],
    });
    expect(login.stdout).not.toContain(TOKENS.dev);
    // No CLOUDCTL_URL or CLOUDCTL_TOKEN: the context answers both.
    await vi.waitFor(
      async () => {
        const apps = await cloudctl(['get', 'applications']);
        expect(apps).toMatchObject({ code: 0, stderr: '' });
        expect(table(apps.stdout)).toEqual([
          ['NAME', 'ACCOUNTS', 'CLUSTERS'],
          ['shop', ACCOUNT, '1'],
        ]);
      },
      { timeout: 30_000, interval: 500 },
    );
    const contexts = await cloudctl(['config', 'get-contexts']);
    expect(table(contexts.stdout)).toEqual([
      ['CURRENT', 'NAME', 'SERVER', 'LOGIN'],
      ['*', 'e2e', system.url, 'token'],
    ]);
    expect(contexts.stdout).not.toContain(TOKENS.dev);
    expect(await cloudctl(['config', 'current-context'])).toEqual({ code: 0, stdout: 'e2e\n', stderr: '' });
  });

  it("never sends a context's token to another server: CLOUDCTL_URL elsewhere gets no token (401)", async () => {
    // Another cloudctl would be another host; the same server under another name stands in for it.
    const elsewhere = system.url.replace('127.0.0.1', 'localhost');
    const run = await cloudctl(['get', 'accounts'], { CLOUDCTL_URL: elsewhere });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `cloudctl: ${elsewhere} needs a token (401): sign in with 'cloudctl login ${elsewhere}' or set CLOUDCTL_TOKEN\n`,
    );
  });

  it('refuses a wrong token (401) and stores nothing', async () => {
    const run = await cloudctl(['login', system.url, '--context', 'bad', '--token', 'not-a-token']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^cloudctl: ${system.url} refused the token \\(401\\): `));
    expect(run.stderr).not.toContain('not-a-token');
    const contexts = await cloudctl(['config', 'get-contexts']);
    expect(contexts.stdout).not.toContain('bad');
  });

  it('says which server it cannot reach, and exits 1', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const run = await cloudctl(['login', closed, '--token', TOKENS.dev]);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toMatch(new RegExp(`^cloudctl: cannot reach ${closed}: .*ECONNREFUSED`));
  });

  it('use-context of an unknown name exits 1 naming the file; a usage error exits 2', async () => {
    const run = await cloudctl(['config', 'use-context', 'nowhere']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`no context 'nowhere' in ${join(home, 'config', 'cloudctl', 'config')}`);
    expect((await cloudctl(['get', 'potatoes'])).code).toBe(2);
    expect((await cloudctl(['login'])).code).toBe(2);
  });
});

describe('cloudctl get, describe and logs', () => {
  it('lists both versions of the application as server groups, the newest with the replicas', async () => {
    await vi.waitFor(
      async () => {
        const run = await cloudctl(['get', 'servergroups', '--app', 'shop'], asDev());
        expect(run.code).toBe(0);
        const [header, ...rows] = table(run.stdout);
        expect(header).toEqual(['NAME', 'ACCOUNT', 'NAMESPACE', 'CLUSTER', 'DESIRED', 'READY', 'AGE']);
        expect(rows).toHaveLength(2);
        const desired = rows.map((r) => [r[0]?.startsWith('replicaSet/shop-'), r[3], r[4], r[5]]);
        expect(desired.sort()).toEqual([
          [true, 'deployment shop', '0', '0'],
          [true, 'deployment shop', '2', '2'],
        ]);
        for (const row of rows) expect(row[6]).toMatch(/^\d+s$|^\dm\d*s?$/);
      },
      { timeout: 60_000, interval: 1000 },
    );
  });

  it('lists the running pods, and -o json parses to the same pods', async () => {
    const pods = await vi.waitFor(
      async () => {
        const run = await cloudctl(['get', 'pods', '--app', 'shop', '-o', 'wide'], asDev());
        const [header, ...rows] = table(run.stdout);
        expect(header).toEqual(['NAME', 'READY', 'STATUS', 'AGE', 'ACCOUNT', 'NAMESPACE', 'SERVER GROUP']);
        expect(rows).toHaveLength(2);
        for (const row of rows) {
          expect(row[0]).toMatch(/^shop-[a-z0-9]+-[a-z0-9]+$/);
          expect(row.slice(1, 3)).toEqual(['True', 'Running']);
          expect(row.slice(4, 6)).toEqual([ACCOUNT, NS]);
        }
        return rows.map((r) => r[0] ?? '');
      },
      { timeout: 60_000, interval: 1000 },
    );
    const json = await cloudctl(['get', 'pods', '--app', 'shop', '-o', 'json'], asDev());
    const parsed = JSON.parse(json.stdout) as Array<{ name: string; status: string }>;
    expect(parsed.map((p) => p.name).sort()).toEqual([...pods].sort());
    const one = await cloudctl(['get', 'pod', pods[0] ?? '', '--app', 'shop', '-o', 'yaml'], asDev());
    expect(load(one.stdout)).toMatchObject({ name: pods[0], status: 'Running', account: ACCOUNT });
  });

  it('describes the Deployment: status, artifacts, both versions and its events', async () => {
    const run = await cloudctl(
      ['describe', 'deployment', 'shop', '--account', ACCOUNT, '--namespace', NS],
      asDev(),
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const out = run.stdout;
    expect(out).toMatch(/^Name: +shop$/m);
    expect(out).toMatch(/^Kind: +deployment$/m);
    expect(out).toMatch(/^Application: +shop$/m);
    expect(out).toMatch(/^ {2}Stable: +True$/m);
    expect(out).toMatch(/^ {2}docker\/image +registry\.example\/shop:2$/m);
    const versions = out.slice(out.indexOf('Versions:'), out.indexOf('Events:')).trim().split('\n');
    expect(versions[1]).toMatch(/^ {2}NAME +DESIRED +READY +TRAFFIC +AGE$/);
    expect(versions.slice(2).map((l) => l.trim().split(/ {3,}/).slice(1, 3))).toEqual([
      ['0', '0/0'],
      ['2', '2/2'],
    ]);
    expect(out).toMatch(/^Events:\n {2}TYPE +REASON +AGE +FROM +MESSAGE\n {2}Normal +ScalingReplicaSet /m);
  });

  it("prints a pod's container log", async () => {
    const pods = JSON.parse(
      (await cloudctl(['get', 'pods', '--app', 'shop', '-o', 'json'], asDev())).stdout,
    ) as Array<{
      name: string;
    }>;
    const pod = pods[0]?.name ?? '';
    const run = await cloudctl(['logs', pod, '--account', ACCOUNT, '--namespace', NS], asDev());
    expect(run).toEqual({ code: 0, stdout: WEB_LOG, stderr: '' });
    const missing = await cloudctl(['logs', pod, '--account', ACCOUNT, '-n', NS, '-c', 'db'], asDev());
    expect(missing).toEqual({
      code: 1,
      stdout: '',
      stderr: `cloudctl: not found: pod ${pod} has no container 'db' (it has web)\n`,
    });
  });

  it('names what is not found (404) and what is forbidden (403), exiting 1', async () => {
    const absent = await cloudctl(['describe', 'deployment/nope', '--account', ACCOUNT, '-n', NS], asDev());
    expect(absent.code).toBe(1);
    expect(absent.stderr).toMatch(/^cloudctl: not found \(404\): .*nope/);
    const noPod = await cloudctl(['get', 'pods', 'nope', '--app', 'shop'], asDev());
    expect(noPod).toEqual({
      code: 1,
      stdout: '',
      stderr: "cloudctl: not found: no pod 'nope' in application shop\n",
    });
    const otto = { CLOUDCTL_URL: system.url, CLOUDCTL_TOKEN: TOKENS.outsider };
    const forbidden = await cloudctl(
      ['describe', 'deployment', 'shop', '--account', ACCOUNT, '-n', NS],
      otto,
    );
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toMatch(/^cloudctl: forbidden \(403\): /);
    // What otto may not read is simply not listed.
    const apps = await cloudctl(['get', 'applications'], otto);
    expect(apps).toEqual({ code: 0, stdout: '', stderr: 'No applications found.\n' });
  });

  it('lists the accounts and the agent that caches them', async () => {
    const accounts = await cloudctl(['get', 'accounts'], asDev());
    expect(table(accounts.stdout)).toEqual([
      ['NAME', 'SOURCE', 'READ', 'WRITE'],
      [ACCOUNT, 'static-agent-config', 'dev', 'dev'],
    ]);
    const agents = await cloudctl(['get', 'agents'], asDev());
    const [header, row] = table(agents.stdout);
    expect(header).toEqual(['AGENT', 'ACCOUNT', 'CONNECTED', 'STATUS', 'OBJECTS', 'LAST SYNC']);
    expect(row?.slice(0, 4)).toEqual(['cli-e2e-agent', ACCOUNT, 'yes', 'ACTIVE']);
    // The Deployment, its two ReplicaSets and the two pods of the newer one.
    expect(row?.[4]).toBe('5');
  });
});

describe('cloudctl login --sso', () => {
  it('signs alice in at the provider through the loopback redirect; the stored token lists her applications', async () => {
    // An opener on PATH that records what it was asked to open, standing in for the desktop's browser.
    const bin = join(dir, 'opener-bin');
    await mkdir(bin, { recursive: true });
    const opened = join(dir, 'opened-url');
    await writeFile(join(bin, 'xdg-open'), `#!/bin/sh\nprintf %s "$1" > '${opened}'\n`);
    await chmod(join(bin, 'xdg-open'), 0o755);
    const login = cloudctlProcess(['login', system.url, '--sso', '--context', 'sso'], {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
    });
    const printed = await vi.waitFor(
      () => {
        const url = /^ {2}(http\S+)$/m.exec(login.output.stderr)?.[1];
        if (url === undefined) throw new Error(`no URL yet: ${login.output.stderr}`);
        return new URL(url);
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(`${printed.origin}${printed.pathname}`).toBe(`${hydra.publicUrl}/oauth2/auth`);
    expect(printed.searchParams.get('client_id')).toBe(cliClientId);
    expect(printed.searchParams.get('code_challenge_method')).toBe('S256');
    const redirect = printed.searchParams.get('redirect_uri') ?? '';
    expect(redirect).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    await vi.waitFor(async () => expect(await readFile(opened, 'utf8')).toBe(printed.toString()));

    // The browser: through Hydra's login and consent, back to the CLI's loopback server.
    hydra.browserUser.name = 'alice';
    const back = await followRedirects(printed.toString(), redirect);
    expect(back.searchParams.get('state')).toBe(printed.searchParams.get('state'));
    const page = await fetch(back);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Signed in.');

    expect(await login.exited).toBe(0);
    expect(login.output.stdout).toBe(
      `Logged in to ${system.url}; context 'sso' is current (${join(home, 'config', 'cloudctl', 'config')}).\n`,
    );
    const file = load(await readFile(join(home, 'config', 'cloudctl', 'config'), 'utf8')) as {
      contexts: Array<{ name: string; server: string; token: string; via: string }>;
    };
    const context = file.contexts.find((c) => c.name === 'sso');
    expect(context).toMatchObject({ server: system.url, via: 'sso' });
    const claims = JSON.parse(Buffer.from(context?.token.split('.')[1] ?? '', 'base64url').toString()) as {
      iss: string;
      sub: string;
    };
    expect(claims).toMatchObject({ iss: hydra.issuer, sub: 'alice' });
    expect(login.output.stdout + login.output.stderr).not.toContain(context?.token);

    // No CLOUDCTL_TOKEN: the provider's token from the context is the bearer cloudctl accepts.
    const apps = await cloudctl(['get', 'applications', '--context', 'sso']);
    expect(apps).toMatchObject({ code: 0, stderr: '' });
    expect(table(apps.stdout)).toEqual([
      ['NAME', 'ACCOUNTS', 'CLUSTERS'],
      ['shop', ACCOUNT, '1'],
    ]);
  });

  it('ignores a callback with another state and keeps waiting for its own', async () => {
    const login = cloudctlProcess(['login', system.url, '--sso', '--context', 'sso-2'], {
      PATH: '/nonexistent',
    });
    const printed = await vi.waitFor(
      () => {
        const url = /^ {2}(http\S+)$/m.exec(login.output.stderr)?.[1];
        if (url === undefined) throw new Error(`no URL yet: ${login.output.stderr}`);
        return new URL(url);
      },
      { timeout: 20_000, interval: 100 },
    );
    const redirect = printed.searchParams.get('redirect_uri') ?? '';
    const forged = await fetch(`${redirect}?code=stolen&state=not-mine`);
    expect(forged.status).toBe(400);
    expect(login.child.exitCode).toBeNull();
    // The provider says no: the sign-in ends, exit 1, nothing stored.
    const state = printed.searchParams.get('state') ?? '';
    const denied = await fetch(
      `${redirect}?error=access_denied&error_description=denied+by+test&state=${state}`,
    );
    expect(denied.status).toBe(401);
    expect(await login.exited).toBe(1);
    expect(login.output.stderr).toContain('cloudctl: the provider did not sign you in: denied by test\n');
    const contexts = await cloudctl(['config', 'get-contexts']);
    expect(contexts.stdout).not.toContain('sso-2');
  });

  it('says when the server has no OIDC sign-in configured, and exits 1', async () => {
    const bare = await startTestControlPlane();
    try {
      const run = await cloudctl(['login', bare.url, '--sso']);
      expect(run).toEqual({
        code: 1,
        stdout: '',
        stderr: `cloudctl: ${bare.url}: this cloudctl has no OIDC sign-in configured (auth.oidc.cli); log in with --token\n`,
      });
    } finally {
      await bare.close();
    }
    const both = await cloudctl(['login', system.url, '--sso', '--token', 'x']);
    expect(both.code).toBe(2);
  });
});

describe('cloudctl get --watch', () => {
  it('prints the pod a scale through the API adds, within seconds, after the table', async () => {
    const watch = cloudctlProcess(['get', 'pods', '--app', 'shop', '--watch'], asDev());
    try {
      const before = await vi.waitFor(
        () => {
          const rows = table(watch.output.stdout).slice(1);
          if (rows.length < 2) throw new Error(`no table yet: ${watch.output.stdout}${watch.output.stderr}`);
          return rows.map((r) => r[0]);
        },
        { timeout: 20_000, interval: 100 },
      );
      const scaled = await fetch(`${system.url}/ops/scaleManifest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKENS.dev}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          account: ACCOUNT,
          manifestName: 'deployment shop',
          location: NS,
          replicas: 3,
        }),
      });
      expect(scaled.status).toBe(200);
      const sent = Date.now();
      const added = await vi.waitFor(
        () => {
          const rows = table(watch.output.stdout).slice(1);
          const fresh = rows.find((r) => r[0] !== undefined && !before.includes(r[0]));
          if (fresh === undefined) throw new Error(`no new pod yet:\n${watch.output.stdout}`);
          return fresh;
        },
        { timeout: 10_000, interval: 100 },
      );
      expect(Date.now() - sent).toBeLessThan(10_000);
      expect(added[0]).toMatch(/^shop-[a-z0-9]+-[a-z0-9]+$/);
      expect(added.slice(4, 6)).toEqual([ACCOUNT, NS]);
      expect(watch.output.stderr).toBe('');
      expect(watch.child.exitCode).toBeNull();
    } finally {
      watch.child.kill('SIGINT');
    }
    expect(await watch.exited).toBe(0);
  });
});
