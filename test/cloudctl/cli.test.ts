// The cloudctl binary as a user runs it: help, version, exit codes, and serve until SIGTERM.
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
    expect(help.stdout).toContain('serve --config FILE');
    const version = await cloudctl('--version');
    expect(version).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  it.each([[[]], [['serve']], [['launch']], [['serve', '--config', 'a.yaml', 'extra']], [['--bogus']]])(
    'exits 2 with a pointer to --help for the usage error %j',
    async (args) => {
      const run = await cloudctl(...args);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("Run 'cloudctl --help' for usage.");
    },
  );

  it('exits 1 naming the setting for an invalid config', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(file, 'grpc:\n  port: 99999\nagents:\n  - id: a\n    tokenHash: sha256:abc\n');
    const run = await cloudctl('serve', '--config', file);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${file}: grpc.port:`);
    expect(run.stderr).toContain(`${file}: agents.0.tokenHash: expected sha256:<64 lowercase hex digits>`);
  });

  it('exits 1 for a config file that does not exist', async () => {
    const run = await cloudctl('serve', '--config', join(dir, 'missing.yaml'));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot read');
  });

  it('serves on the configured port until SIGTERM, then exits 0', async () => {
    const port = await freePort();
    const file = join(dir, 'good.yaml');
    await writeFile(
      file,
      `grpc:\n  host: 127.0.0.1\n  port: ${port}\ndatabase:\n  dataDir: ${join(dir, 'db')}\n`,
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
