// cloudctl's config as its users meet it: every problem of a file in one run at file:line:column and
// key path, unknown keys with a suggestion, `config print` with the database password hidden, the
// examples in config-examples/cloudctl valid, and every setting documented.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cloudctl/cli/run-cli.ts';
import { cloudctlSchemaIndex, hidePassword, parseConfig } from '../../src/cloudctl/config/index.ts';
import { databaseTarget } from '../../src/cloudctl/control-plane.ts';
import { CloudctlError } from '../../src/cloudctl/errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'cloudctl-config-'));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeConfig(yaml: string): string {
  const file = join(dir, `cloudctl-${++files}.yaml`);
  writeFileSync(file, yaml);
  return file;
}

/** cloudctl's CLI in-process, with its output captured. */
async function cloudctl(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    stdout: { write: () => undefined },
    env: {},
    stopSignal: () => Promise.resolve('SIGTERM'),
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

const HASH_A = `sha256:${'a'.repeat(64)}`;
const HASH_B = `sha256:${'b'.repeat(64)}`;

describe('cloudctl config validate', () => {
  it('reports every error of a file in one run, in file order, at line:column and key path', async () => {
    const file = writeConfig(
      [
        'grpc:',
        '  port: 99999',
        'http:',
        '  tls:',
        '    certFile: http.crt',
        'users:',
        '  - name: alice',
        '    tokenHash: sha256:abc',
        'database:',
        '  url: mysql://db/cloudctl',
        'operations:',
        '  waitTimeoutMs: soon',
        'logging:',
        '  level: loud',
        '',
      ].join('\n'),
    );
    const result = await cloudctl('config', 'validate', file);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toEqual([
      `${file}:2:9: error: grpc.port: expected at most 65535, found number 99999`,
      `${file}:5:5: error: http.tls.keyFile: required, expected string`,
      `${file}:8:16: error: users[0].tokenHash: expected sha256:<64 lowercase hex digits> (printf %s "$TOKEN" | sha256sum), found the string 'sha256:abc'`,
      `${file}:10:8: error: database.url: expected a postgres:// URL or an encrypted: reference, found the string 'mysql://db/cloudctl'`,
      `${file}:12:18: error: operations.waitTimeoutMs: expected number, found the string 'soon'`,
      `${file}:14:10: error: logging.level: expected one of 'fatal', 'error', 'warn', 'info', 'debug', 'trace', found the string 'loud'`,
      `${file}: invalid, 6 errors`,
    ]);
  });

  it('refuses an unknown key at the key itself, suggesting the key that was probably meant', async () => {
    const file = writeConfig(
      `grpc:\n  prot: 9091\nagent:\n  - id: a\nusers:\n  - name: bob\n    tokenHash: ${HASH_A}\n    role: [ops]\nlisten: 1\n`,
    );
    const result = await cloudctl('config', 'validate', file);
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')).toEqual([
      `${file}:2:3: error: grpc.prot: unknown key 'prot'; did you mean 'port'?`,
      `${file}:3:1: error: agent: unknown key 'agent'; did you mean 'agents'?`,
      `${file}:8:5: error: users[0].role: unknown key 'role'; did you mean 'roles'?`,
      `${file}:9:1: error: listen: unknown key 'listen'`,
      `${file}: invalid, 4 errors`,
    ]);
  });

  it('suggests a key of another section when no sibling is close', async () => {
    const file = writeConfig('heartbeatSeconds: 5\n');
    const result = await cloudctl('config', 'validate', file);
    expect(result.stderr.split('\n')[0]).toBe(
      `${file}:1:1: error: heartbeatSeconds: unknown key 'heartbeatSeconds'; did you mean 'grpc.heartbeatSeconds'?`,
    );
  });

  it('refuses a role name with whitespace wherever roles are written', async () => {
    const file = writeConfig(
      `users:\n  - name: bob\n    tokenHash: ${HASH_A}\n    roles: [ops team]\nauth:\n  adminRoles: [platform admins]\n  anonymous:\n    roles: [read only]\n`,
    );
    const result = await cloudctl('config', 'validate', file);
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')).toEqual([
      `${file}:4:13: error: users[0].roles[0]: a role name may not contain whitespace, found the string 'ops team'`,
      `${file}:6:16: error: auth.adminRoles[0]: a role name may not contain whitespace, found the string 'platform admins'`,
      `${file}:8:13: error: auth.anonymous.roles[0]: a role name may not contain whitespace, found the string 'read only'`,
      `${file}: invalid, 3 errors`,
    ]);
  });

  it('reports a repeated agent id, user name or token at the entry that repeats it', async () => {
    const file = writeConfig(
      [
        'agents:',
        '  - id: a',
        '  - id: a',
        'users:',
        `  - { name: bob, tokenHash: ${HASH_A} }`,
        `  - { name: bob, tokenHash: ${HASH_B} }`,
        `  - { name: eve, tokenHash: ${HASH_A} }`,
        '',
      ].join('\n'),
    );
    const result = await cloudctl('config', 'validate', file);
    expect(result.stderr.split('\n')).toEqual([
      `${file}:3:9: error: agents[1].id: duplicate agent id 'a' (first used by agents[0])`,
      `${file}:6:13: error: users[1].name: duplicate user name 'bob' (first used by users[0])`,
      `${file}:7:29: error: users[2].tokenHash: two users may not share a token (users[0] has the same hash)`,
      `${file}: invalid, 3 errors`,
    ]);
  });

  it('refuses a database with both a URL and a data directory, at dataDir', async () => {
    const file = writeConfig('database:\n  url: postgres://db/cloudctl\n  dataDir: data\n');
    const result = await cloudctl('config', 'validate', file);
    expect(result.stderr.split('\n')[0]).toBe(
      `${file}:3:12: error: database.dataDir: set one of url, urlFile and dataDir`,
    );
  });

  it('locates YAML syntax errors, and names a file it cannot read', async () => {
    const broken = writeConfig('grpc:\n  port: [9091\n');
    const syntax = await cloudctl('config', 'validate', broken);
    expect(syntax.code).toBe(1);
    expect(syntax.stderr.split('\n')[0]).toMatch(new RegExp(`^${broken}:3:1: error: invalid YAML: `));
    const missing = await cloudctl('config', 'validate', join(dir, 'missing.yaml'));
    expect(missing.stderr.split('\n')[0]).toBe(
      `${join(dir, 'missing.yaml')}:1:1: error: cannot read the file: ENOENT`,
    );
  });

  it('accepts an empty file and says what it holds', async () => {
    const file = writeConfig('');
    expect(await cloudctl('config', 'validate', file)).toEqual({
      code: 0,
      stdout: `${file}: valid (0 agents, 0 users, embedded database)`,
      stderr: '',
    });
  });
});

describe('cloudctl config print', () => {
  it('prints the effective config: defaults filled, paths absolute', async () => {
    const file = writeConfig('grpc:\n  tls:\n    certFile: tls/grpc.crt\n    keyFile: /etc/grpc.key\n');
    const result = await cloudctl('config', 'print', file);
    expect(result.code).toBe(0);
    expect(load(result.stdout)).toEqual({
      grpc: {
        host: '0.0.0.0',
        port: 9091,
        heartbeatSeconds: 20,
        helloTimeoutSeconds: 10,
        tls: { certFile: join(dir, 'tls/grpc.crt'), keyFile: '/etc/grpc.key' },
      },
      http: { host: '0.0.0.0', port: 7002, shutdownTimeoutMs: 10_000 },
      users: [],
      auth: { adminRoles: [], anonymous: { enabled: false, roles: [] } },
      watch: { windowSeconds: 3600, keepAliveSeconds: 15, clientBufferBytes: 1_048_576 },
      agents: [],
      agentRetirement: { notSeenForSeconds: 0 },
      accounts: [],
      database: { dataDir: join(dir, 'data/cloudctl') },
      operations: { waitTimeoutMs: 60_000 },
      plans: { expireAfterSeconds: 3600 },
      analysis: { providers: [] },
      secrets: {
        store: {
          file: {},
          env: { prefix: '' },
          vault: { enabled: false, authMethod: 'TOKEN', path: 'kubernetes' },
        },
      },
      oauth: { tokenLifetimeSeconds: 3600 },
      logging: { level: 'info' },
    });
  });

  it('hides the database password and shows the token hashes', async () => {
    const file = writeConfig(
      `database:\n  url: postgres://cloudctl:pa55word@db:5432/cloudctl\nusers:\n  - name: bob\n    tokenHash: ${HASH_A}\n`,
    );
    const result = await cloudctl('config', 'print', file);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('pa55word');
    expect(result.stdout).toContain('  url: postgres://cloudctl:***@db:5432/cloudctl\n');
    expect(result.stdout).toContain(`    tokenHash: ${HASH_A}\n`);
  });

  it.each([
    ['postgres://u:secret@db/x', 'postgres://u:***@db/x'],
    ['postgresql://u:se@cr:et@db:5432/x', 'postgresql://u:***@db:5432/x'],
    ['postgres://u@db/x?password=secret&sslmode=disable', 'postgres://u@db/x?password=***&sslmode=disable'],
    ['postgres://db/x', 'postgres://db/x'],
  ])('shows the URL %s as %s', (url, shown) => {
    expect(hidePassword(url)).toBe(shown);
  });

  it('prints nothing on stdout for an invalid file and exits 1', async () => {
    const file = writeConfig('grpc:\n  port: -1\n');
    expect(await cloudctl('config', 'print', file)).toEqual({
      code: 1,
      stdout: '',
      stderr: `${file}:2:9: error: grpc.port: expected at least 0, found number -1`,
    });
  });
});

describe("secret references in cloudctl's config", () => {
  it('validate checks each reference without fetching it, at its value, naming the engine', async () => {
    const good = writeConfig(
      'database:\n  url: postgres://cloudctl@db/cloudctl\n  password: encrypted:env!n:NEVER_SET_ANYWHERE_4821\n',
    );
    expect(await cloudctl('config', 'validate', good)).toMatchObject({ code: 0, stderr: '' });
    const bad = writeConfig(
      [
        'database:',
        '  url: encrypted:nope!n:X',
        '  password: encrypted:vault!e:secret',
        'secrets:',
        '  store:',
        '    env: { prefx: CLOUDCTL_ }',
        '',
      ].join('\n'),
    );
    const result = await cloudctl('config', 'validate', bad);
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')).toEqual([
      `${bad}:2:8: error: database.url: nope engine: cannot resolve encrypted:nope!n:X: unknown secrets engine 'nope'; available: file, env, k8s, vault`,
      `${bad}:3:13: error: database.password: vault engine: cannot resolve encrypted:vault!e:secret: the vault engine is off: set secrets.store.vault.enabled: true and its url`,
      `${bad}:6:12: error: secrets.store.env.prefx: unknown key 'prefx'; did you mean 'prefix'?`,
      `${bad}: invalid, 3 errors`,
    ]);
  });

  it('print shows each reference as written and a secret written in clear as ***', async () => {
    const file = writeConfig(
      [
        'database:',
        '  url: encrypted:k8s!n:cloudctl-db!k:url',
        '  password: hunter2-in-clear',
        'secrets:',
        '  store:',
        '    vault: { enabled: true, url: "https://vault.example:8200", token: s.vault-token-in-clear }',
        '',
      ].join('\n'),
    );
    const result = await cloudctl('config', 'print', file);
    expect(result.code, result.stderr).toBe(0);
    const printed = load(result.stdout) as {
      database: Record<string, string>;
      secrets: { store: { vault: Record<string, unknown> } };
    };
    expect(printed.database).toEqual({ url: 'encrypted:k8s!n:cloudctl-db!k:url', password: '***' });
    expect(printed.secrets.store.vault).toMatchObject({ token: '***', url: 'https://vault.example:8200' });
    expect(result.stdout).not.toContain('hunter2');
    expect(result.stdout).not.toContain('vault-token-in-clear');
    const referenced = writeConfig(
      'database:\n  url: postgres://u:pw-in-url@db/x\n  password: encrypted:env!n:DB_PASSWORD\n',
    );
    const shown = load((await cloudctl('config', 'print', referenced)).stdout) as {
      database: Record<string, string>;
    };
    expect(shown.database).toEqual({ url: 'postgres://u:***@db/x', password: 'encrypted:env!n:DB_PASSWORD' });
  });

  it('puts database.password in the URL in place of its own, escaped', () => {
    const config = parseConfig(
      { database: { url: 'postgres://cloudctl:old@db:5432/cloudctl', password: 'p@ss:w/rd%' } },
      'test',
      dir,
    );
    expect(databaseTarget(config.database)).toEqual({
      kind: 'postgres',
      url: 'postgres://cloudctl:p%40ss%3Aw%2Frd%25@db:5432/cloudctl',
    });
    expect(() => parseConfig({ database: { password: 'x' } }, 'test', dir)).toThrow(
      'test: error: database.password: password is for PostgreSQL: set url or urlFile too',
    );
  });
});

describe('parseConfig', () => {
  it('throws CONFIG_INVALID with one line per problem, named after the source', () => {
    let thrown: unknown;
    try {
      parseConfig({ grpc: { port: 'x' }, agnets: [] }, 'test config', dir);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CloudctlError);
    expect(thrown).toMatchObject({
      code: 'CONFIG_INVALID',
      message: [
        "CONFIG_INVALID: test config: error: grpc.port: expected number, found the string 'x'",
        "test config: error: agnets: unknown key 'agnets'; did you mean 'agents'?",
      ].join('\n'),
    });
  });

  it('makes relative paths absolute against the base, and keeps no data directory beside a URL', () => {
    const config = parseConfig(
      { http: { tls: { certFile: 'h.crt', keyFile: 'h.key' } }, database: { url: 'postgres://db/x' } },
      'test',
      '/etc/cloudctl',
    );
    expect(config.http.tls).toEqual({ certFile: '/etc/cloudctl/h.crt', keyFile: '/etc/cloudctl/h.key' });
    expect(config.database).toEqual({ url: 'postgres://db/x' });
    expect(parseConfig({ database: { dataDir: 'memory://' } }, 'test', '/etc').database.dataDir).toBe(
      'memory://',
    );
  });

  it('reads the database URL from urlFile, relative to the config, and never echoes a bad one', () => {
    const urlDir = mkdtempSync(join(tmpdir(), 'cloudctl-url-'));
    writeFileSync(join(urlDir, 'url'), 'postgres://cloudctl:s3cret@db:5432/cloudctl\n');
    writeFileSync(join(urlDir, 'bad'), 'mysql://cloudctl:s3cret@db\n');
    const config = parseConfig({ database: { urlFile: 'url' } }, 'test', urlDir);
    expect(config.database).toEqual({ urlFile: join(urlDir, 'url') });
    expect(databaseTarget(config.database)).toEqual({
      kind: 'postgres',
      url: 'postgres://cloudctl:s3cret@db:5432/cloudctl',
    });
    const bad = parseConfig({ database: { urlFile: 'bad' } }, 'test', urlDir);
    expect(() => databaseTarget(bad.database)).toThrow(
      `database.urlFile: ${join(urlDir, 'bad')} does not hold a postgres:// URL`,
    );
    expect(() => databaseTarget(bad.database)).not.toThrow(/s3cret/);
    const missing = parseConfig({ database: { urlFile: 'missing' } }, 'test', urlDir);
    expect(() => databaseTarget(missing.database)).toThrow(
      /database.urlFile: cannot read .*missing: .*ENOENT/,
    );
    expect(() =>
      parseConfig({ database: { urlFile: 'url', url: 'postgres://x/y' } }, 'test', urlDir),
    ).toThrow('set one of url, urlFile and dataDir');
    rmSync(urlDir, { recursive: true });
  });
});

describe('config-examples/cloudctl', () => {
  const root = join(import.meta.dirname, '../../config-examples/cloudctl');
  const examples = readdirSync(root).filter((f) => f.endsWith('.yaml'));

  it('cover the embedded database, PostgreSQL and TLS', () => {
    expect(examples.sort()).toEqual(['embedded.yaml', 'postgres.yaml', 'tls.yaml']);
  });

  it.each(examples)('%s validates', async (name) => {
    const result = await cloudctl('config', 'validate', join(root, name));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/: valid \(\d+ agents?, \d+ users?, (embedded database|PostgreSQL)\)$/);
  });
});

describe("cloudctl's schema", () => {
  it('describes every setting and every group of settings', () => {
    const index = cloudctlSchemaIndex();
    const undescribed = [...index.settings, ...index.groups]
      .filter((s) => s.description === '')
      .map((s) => s.path);
    expect(undescribed).toEqual([]);
    expect(index.settings.length).toBeGreaterThan(20);
  });
});
