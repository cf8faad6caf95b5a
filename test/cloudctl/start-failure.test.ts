// A cloudctl that cannot start stops every part it started and exits non-zero with the reason, on
// both databases: a taken HTTP or gRPC port, a certificate that is not one, a database that refuses.
// On PostgreSQL the replica membership and its listening connection start before the ports: a
// start that failed there once stayed up half-started, refusing agents and logging "driver has
// already been destroyed" every 2 s, a process that looks alive and serves nothing.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/cloudctl/index.ts';
import { freePort } from '../cluster/free-port.ts';
import { type PostgresServer, startPostgres } from '../support/postgres-server.ts';

const BIN = join(import.meta.dirname, '../../bin/cloudctl.js');
/** Far more than a failed start takes; a process still running then did not exit. */
const EXIT_WITHIN_MS = 30_000;

let dir: string;
let postgres: PostgresServer;
let taken: Server;
let takenPort: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-start-failure-'));
  postgres = await startPostgres();
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const address = taken.address();
  takenPort = typeof address === 'object' && address !== null ? address.port : 0;
}, 60_000);

afterAll(async () => {
  taken?.close();
  await postgres?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Runs `cloudctl serve` on the config and waits for it to exit; a process still running is killed and reported. */
async function serve(name: string, lines: string[]): Promise<{ code: number | null; output: string }> {
  const file = join(dir, `${name}.yaml`);
  await writeFile(
    file,
    [
      ...lines,
      `agents:\n  - id: a\n    tokenHash: ${hashToken('agent-token')}`,
      'logging: { level: info }',
      '',
    ].join('\n'),
  );
  const child = spawn(process.execPath, [BIN, 'serve', '--config', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_WITHIN_MS);
  const code = await exited;
  clearTimeout(timer);
  if (child.signalCode === 'SIGKILL')
    return { code: null, output: `still running after ${EXIT_WITHIN_MS} ms:\n${output}` };
  return { code, output };
}

const databases = [
  [
    'the embedded database',
    () => `database:\n  dataDir: ${join(dir, `data-${Math.random().toString(36).slice(2)}`)}`,
  ],
  ['PostgreSQL', () => `database:\n  url: ${postgres.url}`],
] as const;

describe.each(databases)('a start that fails, on %s', (_name, database) => {
  it('exits 1 naming the HTTP port that is taken', async () => {
    const run = await serve('http-taken', [
      database(),
      `grpc: { host: 127.0.0.1, port: ${await freePort()} }`,
      `http: { host: 127.0.0.1, port: ${takenPort} }`,
    ]);
    expect(run.code, run.output).toBe(1);
    expect(run.output).toMatch(
      new RegExp(`cloudctl: LISTEN_FAILED: HTTP 127\\.0\\.0\\.1:${takenPort}: .*EADDRINUSE`),
    );
    expect(run.output).not.toContain('driver has already been destroyed');
  });

  it('exits 1 naming the gRPC port that is taken', async () => {
    const run = await serve('grpc-taken', [
      database(),
      `grpc: { host: 127.0.0.1, port: ${takenPort} }`,
      `http: { host: 127.0.0.1, port: ${await freePort()} }`,
    ]);
    expect(run.code, run.output).toBe(1);
    expect(run.output).toMatch(
      new RegExp(`cloudctl: LISTEN_FAILED: gRPC 127\\.0\\.0\\.1:${takenPort}: .*EADDRINUSE`),
    );
  });

  it('exits 1 naming a TLS certificate that is not one', async () => {
    const bad = join(dir, 'not-a-cert.pem');
    await writeFile(bad, 'this is not a certificate\n');
    const run = await serve('bad-cert', [
      database(),
      `grpc: { host: 127.0.0.1, port: ${await freePort()} }`,
      `http: { host: 127.0.0.1, port: ${await freePort()}, tls: { certFile: ${bad}, keyFile: ${bad} } }`,
    ]);
    expect(run.code, run.output).toBe(1);
    expect(run.output).toMatch(
      /^cloudctl: CONFIG_INVALID: http\.tls: certFile and keyFile are not a certificate and its key: .*PEM/m,
    );
    expect(run.output).not.toMatch(/^\s+at /m);
  });
});

describe('a start that fails on PostgreSQL', () => {
  it('exits 1 naming a database that refuses connections', async () => {
    const closed = await freePort();
    const run = await serve('db-refuses', [
      `database:\n  url: postgres://postgres@127.0.0.1:${closed}/postgres`,
      `grpc: { host: 127.0.0.1, port: ${await freePort()} }`,
      `http: { host: 127.0.0.1, port: ${await freePort()} }`,
    ]);
    expect(run.code, run.output).toBe(1);
    expect(run.output).toMatch(
      new RegExp(
        `cloudctl: DATABASE_UNAVAILABLE: PostgreSQL at 127\\.0\\.0\\.1:${closed}/postgres: .*ECONNREFUSED`,
      ),
    );
  });
});
