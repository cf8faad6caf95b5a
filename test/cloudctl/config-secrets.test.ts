// cloudctl's database password from a secret reference, as an operator runs it: the binary started
// on a PostgreSQL server that checks passwords (scram-sha-256), the password only in the environment
// the `env` engine reads. A reference that cannot be resolved stops the start at its line, naming the
// engine and the reference; no secret reaches the output either way.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../cluster/free-port.ts';
import { type PostgresServer, startPostgres } from '../support/postgres-server.ts';

const BIN = join(import.meta.dirname, '../../bin/cloudctl.js');
/** Far more than a start or a failed start takes; a process still running then is killed. */
const WITHIN_MS = 60_000;
const PASSWORD = `pg-${randomBytes(9).toString('hex')}`;
const PASSWORD_VARIABLE = 'CLOUDCTL_TEST_DB_PASSWORD';

let dir: string;
let postgres: PostgresServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-config-secrets-'));
  postgres = await startPostgres({ password: PASSWORD });
}, 60_000);

afterAll(async () => {
  await postgres?.stop();
  await rm(dir, { recursive: true, force: true });
});

interface Serving {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

async function serve(name: string, lines: string[], env: NodeJS.ProcessEnv): Promise<Serving> {
  const file = join(dir, `${name}.yaml`);
  await writeFile(
    file,
    [
      ...lines,
      `grpc: { host: 127.0.0.1, port: ${await freePort()} }`,
      `http: { host: 127.0.0.1, port: ${await freePort()} }`,
      'logging: { level: debug }',
      '',
    ].join('\n'),
  );
  const child = spawn(process.execPath, [BIN, 'serve', '--config', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, [PASSWORD_VARIABLE]: undefined, ...env },
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const timer = setTimeout(() => child.kill('SIGKILL'), WITHIN_MS);
  void exited.then(() => clearTimeout(timer));
  return { child, output: () => output, exited };
}

const configFile = (name: string) => join(dir, `${name}.yaml`);

describe('cloudctl serve with its database password from a secret reference', () => {
  it('starts on PostgreSQL with database.password from an encrypted:env reference, and never prints it', async () => {
    const run = await serve(
      'env-password',
      [`database:\n  url: ${postgres.urlWithoutPassword}\n  password: encrypted:env!n:${PASSWORD_VARIABLE}`],
      { [PASSWORD_VARIABLE]: PASSWORD },
    );
    await expect
      .poll(run.output, { timeout: WITHIN_MS, interval: 100 })
      .toMatch(/HTTP API listening|exited|error/);
    expect(run.output()).toContain('HTTP API listening');
    const port = Number(/"port":(\d+)[^\n]*HTTP API listening/.exec(run.output())?.[1]);
    const ready = await fetch(`http://127.0.0.1:${port}/ready`);
    expect(ready.status, await ready.text()).toBe(200);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.output()).not.toContain(PASSWORD);
  });

  it('takes the whole URL from a reference too (here a file the file engine reads)', async () => {
    await writeFile(join(dir, 'database-url'), `${postgres.url}\n`, { mode: 0o600 });
    const run = await serve('file-url', ['database:\n  url: encrypted:file!f:database-url'], {});
    await expect.poll(run.output, { timeout: WITHIN_MS, interval: 100 }).toMatch(/HTTP API listening|error/);
    expect(run.output()).toContain('HTTP API listening');
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.output()).not.toContain(PASSWORD);
  });

  it('uses the resolved password: a wrong one is refused by PostgreSQL, and not printed', async () => {
    const wrong = `wrong-${randomBytes(6).toString('hex')}`;
    const run = await serve(
      'wrong-password',
      [`database:\n  url: ${postgres.urlWithoutPassword}\n  password: encrypted:env!n:${PASSWORD_VARIABLE}`],
      { [PASSWORD_VARIABLE]: wrong },
    );
    expect(await run.exited, run.output()).toBe(1);
    expect(run.output()).toMatch(
      /cloudctl: DATABASE_UNAVAILABLE: PostgreSQL at 127\.0\.0\.1:\d+\/postgres: .*password authentication failed/,
    );
    expect(run.output()).not.toContain(wrong);
  });

  it('stops with exit 1 at a reference it cannot resolve, naming file, line, key path and engine', async () => {
    const run = await serve(
      'unset-variable',
      [`database:\n  url: ${postgres.urlWithoutPassword}\n  password: encrypted:env!n:${PASSWORD_VARIABLE}`],
      {},
    );
    expect(await run.exited, run.output()).toBe(1);
    expect(run.output()).toBe(
      `${configFile('unset-variable')}:3:13: error: database.password: env engine: cannot resolve encrypted:env!n:${PASSWORD_VARIABLE}: environment variable ${PASSWORD_VARIABLE} is not set\n`,
    );
  });

  it('stops with exit 1 when Vault cannot be reached, naming the vault engine and not the token', async () => {
    const token = `hvs.${randomBytes(12).toString('hex')}`;
    const closed = await freePort();
    const run = await serve(
      'vault-unreachable',
      [
        'database:',
        `  url: ${postgres.urlWithoutPassword}`,
        '  password: encrypted:vault!e:secret!p:cloudctl/database!k:password',
        'secrets:',
        '  store:',
        `    vault: { enabled: true, url: "http://127.0.0.1:${closed}", token: "${token}" }`,
      ],
      {},
    );
    expect(await run.exited, run.output()).toBe(1);
    expect(run.output()).toContain(
      `${configFile('vault-unreachable')}:3:13: error: database.password: vault engine: cannot resolve encrypted:vault!e:secret!p:cloudctl/database!k:password: cannot reach Vault at http://127.0.0.1:${closed}: ECONNREFUSED`,
    );
    expect(run.output()).not.toContain(token);
  });

  it('refuses a resolved URL that is not a postgres:// URL without quoting it', async () => {
    const notUrl = `mysql://root:${PASSWORD}@db/x`;
    const run = await serve('not-a-url', ['database:\n  url: encrypted:env!n:CLOUDCTL_TEST_DB_URL'], {
      CLOUDCTL_TEST_DB_URL: notUrl,
    });
    expect(await run.exited, run.output()).toBe(1);
    expect(run.output()).toBe(
      `${configFile('not-a-url')}:2:8: error: database.url: encrypted:env!n:CLOUDCTL_TEST_DB_URL: the secret's value is invalid here: expected a postgres:// URL or an encrypted: reference\n`,
    );
  });
});
