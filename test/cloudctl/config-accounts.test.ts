// Accounts declared in cloudctl's config file, as an operator runs them: the binary serving a file
// with `accounts:`, the credentials API reading them and refusing to change them (409 naming the
// file), and a restart on the same database applying what changed in the file: an entry changed is
// a new revision, an entry removed is deleted, and a name the API defined before is taken over.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/cloudctl/index.ts';
import { freePort } from '../cluster/free-port.ts';

const BIN = join(import.meta.dirname, '../../bin/cloudctl.js');
const TOKEN = 'config-accounts-admin-token';

let dir: string;
let file: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-config-accounts-'));
  file = join(dir, 'cloudctl.yaml');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const account = (name: string, read: string[]) => [
  `  - name: ${name}`,
  '    type: orchestrator',
  `    orchConfigContents: encrypted:k8s!n:${name}-kubeconfig!k:config`,
  `    permissions: { READ: [${read.join(', ')}], WRITE: [admins] }`,
];

async function writeConfig(port: number, accounts: string[]): Promise<void> {
  await writeFile(
    file,
    [
      `grpc: { host: 127.0.0.1, port: ${await freePort()} }`,
      `http: { host: 127.0.0.1, port: ${port} }`,
      `database: { dataDir: ${join(dir, 'data')} }`,
      'users:',
      `  - { name: alice, tokenHash: "${hashToken(TOKEN)}", roles: [admins] }`,
      'auth: { adminRoles: [admins] }',
      ...(accounts.length === 0 ? [] : ['accounts:', ...accounts]),
      '',
    ].join('\n'),
  );
}

interface Serving {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

async function serve(): Promise<Serving> {
  const child = spawn(process.execPath, [BIN, 'serve', '--config', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  await expect.poll(() => output, { timeout: 60_000, interval: 100 }).toMatch(/HTTP API listening|error/);
  expect(output).toContain('HTTP API listening');
  return { child, output: () => output, exited };
}

async function stop(serving: Serving): Promise<void> {
  serving.child.kill('SIGTERM');
  expect(await serving.exited).toBe(0);
}

async function api(port: number, method: string, path: string, body?: unknown) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>),
  };
}

const definition = (name: string, read: string[]) => ({
  name,
  type: 'orchestrator',
  orchConfigContents: `encrypted:k8s!n:${name}-kubeconfig!k:config`,
  permissions: { READ: read, WRITE: ['admins'] },
});

describe("accounts in cloudctl's config file", () => {
  it('are served read-only over the API, and a restart applies what changed in the file', async () => {
    // Each start listens on a port of its own: a port freed by a stop may be taken by a parallel
    // test before the next start binds it.
    let port = await freePort();
    await writeConfig(port, [...account('file-a', ['dev']), ...account('file-b', ['dev'])]);
    let serving = await serve();
    try {
      const a = await api(port, 'GET', '/credentials/file-a');
      expect(a.status).toBe(200);
      expect(a.body).toMatchObject({
        name: 'file-a',
        orchConfigContents: 'encrypted:k8s!n:file-a-kubeconfig!k:config',
      });
      const refused = `account file-a is defined in cloudctl's config file ${file} (accounts); change it there`;
      const put = await api(port, 'PUT', '/credentials', definition('file-a', ['ops']));
      expect(put.status).toBe(409);
      expect(JSON.stringify(put.body)).toContain(refused);
      const del = await api(port, 'DELETE', '/credentials/file-a');
      expect(del.status).toBe(409);
      expect(JSON.stringify(del.body)).toContain(refused);
      const post = await api(port, 'POST', '/credentials', definition('file-a', ['ops']));
      expect(post.status).toBe(409);
      expect(JSON.stringify(post.body)).toContain(refused);
      // An account of the API's own stays writable.
      expect((await api(port, 'POST', '/credentials', definition('api-c', ['dev']))).status).toBe(200);
      expect((await api(port, 'PUT', '/credentials', definition('api-c', ['ops']))).status).toBe(200);
    } finally {
      await stop(serving);
    }

    // file-a changed, file-b removed, api-c now declared in the file.
    const changed = [...account('file-a', ['qa']), ...account('api-c', ['dev'])];
    port = await freePort();
    await writeConfig(port, changed);
    serving = await serve();
    try {
      expect(serving.output()).toMatch(/"account":"file-b","change":"deleted"/);
      expect((await api(port, 'GET', '/credentials/file-b')).status).toBe(404);
      const a = await api(port, 'GET', '/credentials/file-a');
      expect(a.body).toMatchObject({ permissions: { READ: ['qa'], WRITE: ['admins'] } });
      const history = await api(port, 'GET', '/credentials/file-a/history');
      expect(Array.isArray(history.body) ? history.body.length : 0).toBe(2);
      const c = await api(port, 'GET', '/credentials/api-c');
      expect(c.body).toMatchObject({ permissions: { READ: ['dev'], WRITE: ['admins'] } });
      expect((await api(port, 'PUT', '/credentials', definition('api-c', ['ops']))).status).toBe(409);
    } finally {
      await stop(serving);
    }

    // A start with the same accounts writes nothing new.
    port = await freePort();
    await writeConfig(port, changed);
    serving = await serve();
    try {
      const history = await api(port, 'GET', '/credentials/file-a/history');
      expect(Array.isArray(history.body) ? history.body.length : 0).toBe(2);
      expect(serving.output()).not.toContain('config file account');
    } finally {
      await stop(serving);
    }
  }, 120_000);

  it('are checked as POST /credentials checks them, by config validate, each problem at its line', async () => {
    const bad = join(dir, 'bad.yaml');
    await writeFile(
      bad,
      [
        'accounts:',
        '  - name: dup',
        '    type: orchestrator',
        '    orchConfigContents: encrypted:k8s!n:dup!k:config',
        '  - name: literal',
        '    type: orchestrator',
        '    orchConfigContents: apiVersion-v1-the-kubeconfig-itself',
        '  - name: dup',
        '    type: orchestrator',
        '',
      ].join('\n'),
    );
    const child = spawn(process.execPath, [BIN, 'config', 'validate', bad], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain(
      `${bad}:7:25: error: accounts[1].orchConfigContents: must be a secret reference (encrypted:<engine>!key:value… or encryptedFile:<engine>!…), not the secret itself`,
    );
    expect(stderr).toContain(
      `${bad}:8:11: error: accounts[2].name: duplicate account name 'dup' (first used by accounts[0])`,
    );
    expect(stderr).not.toContain('apiVersion-v1-the-kubeconfig-itself');
  });
});
