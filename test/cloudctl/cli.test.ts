// The cloudctl binary as a user runs it: help, version, exit codes, config validate and print, and
// serve until SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { freePort } from '../cluster/free-port.ts';

const BIN = join(import.meta.dirname, '../../bin/cloudctl.js');
let dir: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function start(args: string[]): { child: ChildProcess; done: Promise<Run>; stdout: () => string } {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, done, stdout: () => stdout };
}

const cloudctl = (...args: string[]) => start(args).done;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-cli-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('cloudctl CLI', () => {
  it('prints usage for --help and the package version for --version, exiting 0', async () => {
    const help = await cloudctl('--help');
    expect(help.code).toBe(0);
    for (const command of [
      'serve --config FILE',
      'config validate FILE',
      'config print FILE',
      'deploy -f FILE [--no-wait | --plan]',
      'plan -f FILE',
      'apply-plan ID [--no-wait]',
      'clients create --name NAME --type TYPE --role ROLE...',
      'clients rotate CLIENT_ID',
    ]) {
      expect(help.stdout).toContain(command);
    }
    const version = await cloudctl('--version');
    expect(version).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  it.each([
    [['serve', '--help'], 'serve --config FILE'],
    [['config', 'validate', '--help'], 'config validate FILE'],
    [['config', 'print', '-h'], 'config print FILE'],
    [['deploy', '--help'], 'deploy -f FILE'],
    [['deploy', '-f', 'x.yaml', '-h'], 'deploy -f FILE'],
    [['deploy', '--bogus', '--help'], 'deploy -f FILE'],
    [['get', 'pods', '--help'], 'get KIND [NAME]'],
    [['plan', '--help'], 'plan -f FILE'],
    [['apply-plan', '-h'], 'apply-plan ID [--no-wait]'],
    [['clients', 'list', '--help'], 'clients list [options]'],
  ])("prints the command's own usage for --help after it: %j", async (args, usage) => {
    const run = await cloudctl(...args);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(new RegExp(`^Usage: cloudctl ${usage.replace(/[[\]]/g, '\\$&')}`));
    expect(run.stdout).toContain('Exit status: 0 success; 1 failure');
  });

  it.each([
    [[]],
    [['serve']],
    [['launch']],
    [['serve', '--config', 'a.yaml', 'extra']],
    [['--bogus']],
    [['config']],
    [['config', 'check', 'a.yaml']],
    [['config', 'validate']],
    [['config', 'print', 'a.yaml', 'b.yaml']],
    [['config', 'validate', '--config', 'a.yaml']],
    [['plan']],
    [['apply-plan']],
    [['deploy', '-f', 'x.yaml', '--plan', '--no-wait']],
    [['clients']],
    [['clients', 'create', '--name', 'x', '--type', 'deployments']],
    [['clients', 'create', '--name', 'x', '--type', 'admin', '--role', 'ops']],
    [['clients', 'revoke']],
    [['clients', 'list', '-o', 'yaml']],
  ])('exits 2 with a pointer to --help for the usage error %j', async (args) => {
    const run = await cloudctl(...args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Run 'cloudctl --help' for usage.");
  });

  it('does not serve an invalid config: it prints every problem at file:line:column and exits 1', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(file, 'grpc:\n  port: 99999\nagents:\n  - id: a\n    tokenHash: sha256:abc\n');
    const run = await cloudctl('serve', '--config', file);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        `${file}:2:9: error: grpc.port: expected at most 65535, found number 99999`,
        `${file}:5:16: error: agents[0].tokenHash: expected sha256:<64 lowercase hex digits> (printf %s "$TOKEN" | sha256sum), found the string 'sha256:abc'`,
        '',
      ].join('\n'),
    });
  });

  it('does not serve when a file the config names cannot be read, naming the setting', async () => {
    const file = join(dir, 'tls-missing.yaml');
    await writeFile(file, 'grpc:\n  tls:\n    certFile: missing.crt\n    keyFile: /nonexistent/grpc.key\n');
    expect(await cloudctl('serve', '--config', file)).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        `${file}:3:5: error: grpc.tls.certFile: cannot read ${join(dir, 'missing.crt')}: ENOENT`,
        `${file}:4:5: error: grpc.tls.keyFile: cannot read /nonexistent/grpc.key: ENOENT`,
        '',
      ].join('\n'),
    });
  });

  it('exits 1 for a config file that does not exist', async () => {
    const file = join(dir, 'missing.yaml');
    const run = await cloudctl('serve', '--config', file);
    expect(run).toMatchObject({ code: 1, stderr: `${file}:1:1: error: cannot read the file: ENOENT\n` });
  });

  it('config validate exits 0 for a valid file and 1, listing every problem, for an invalid one', async () => {
    const good = join(dir, 'valid.yaml');
    await writeFile(good, `agents:\n  - id: a\n    tokenHash: sha256:${'0'.repeat(64)}\n`);
    expect(await cloudctl('config', 'validate', good)).toEqual({
      code: 0,
      stdout: `${good}: valid (1 agent, 0 users, embedded database)\n`,
      stderr: '',
    });
    const bad = join(dir, 'invalid.yaml');
    await writeFile(bad, 'http:\n  prot: 80\nlogging:\n  level: loud\n');
    expect(await cloudctl('config', 'validate', bad)).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        `${bad}:2:3: error: http.prot: unknown key 'prot'; did you mean 'port'?`,
        `${bad}:4:10: error: logging.level: expected one of 'fatal', 'error', 'warn', 'info', 'debug', 'trace', found the string 'loud'`,
        `${bad}: invalid, 2 errors`,
        '',
      ].join('\n'),
    });
  });

  it('config print exits 0 with the effective config, the database password hidden, and 1 when invalid', async () => {
    const file = join(dir, 'postgres.yaml');
    await writeFile(file, 'database:\n  url: postgres://cloudctl:hunter2@db.internal:5432/cloudctl\n');
    const print = await cloudctl('config', 'print', file);
    expect(print.code).toBe(0);
    expect(print.stdout).not.toContain('hunter2');
    expect(print.stdout).toContain('database:\n  url: postgres://cloudctl:***@db.internal:5432/cloudctl\n');
    expect(print.stdout).toContain('grpc:\n  host: 0.0.0.0\n  port: 9091\n');
    expect(print.stdout).toContain('http:\n  host: 0.0.0.0\n  port: 7002\n');
    const bad = join(dir, 'print-invalid.yaml');
    await writeFile(bad, 'database:\n  url: mysql://db\n');
    expect(await cloudctl('config', 'print', bad)).toEqual({
      code: 1,
      stdout: '',
      stderr: `${bad}:2:8: error: database.url: expected a postgres:// URL or an encrypted: reference, found the string 'mysql://db'\n`,
    });
  });

  it('serves on the configured port until SIGTERM, then exits 0', async () => {
    const port = await freePort();
    const file = join(dir, 'good.yaml');
    await writeFile(
      file,
      `grpc:\n  host: 127.0.0.1\n  port: ${port}\nhttp:\n  host: 127.0.0.1\n  port: 0\ndatabase:\n  dataDir: ${join(dir, 'db')}\n`,
    );
    const serve = start(['serve', '--config', file]);
    await expect.poll(serve.stdout, { timeout: 60_000, interval: 100 }).toContain('gRPC endpoint listening');
    expect(serve.stdout()).toContain(`"port":${port}`);
    serve.child.kill('SIGTERM');
    const run = await serve.done;
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('cloudctl stopping');
  });
});
