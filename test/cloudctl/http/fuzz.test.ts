// The HTTP API under schemathesis: a real `cloudctl serve` (the binary, an embedded database in a
// temporary directory, one admin user) is fuzzed from its own Swagger document. schemathesis sends
// schema-valid and schema-breaking requests to every operation and fails on any 5xx, any answer that
// does not match its documented schema, status or media type, any invalid request accepted, any valid
// one refused, any method other than the documented ones not answered 405, and a token ignored. The
// exceptions and their reasons are in schemathesis.toml; the bounds and seed are below.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../../src/cloudctl/index.ts';
import { freePort, isAddressInUse } from '../../cluster/free-port.ts';
import {
  expectEveryOperationTested,
  expectSchemathesis,
  runArguments,
  runSchemathesis,
  settingsFor,
} from './schemathesis-run.ts';

const BIN = join(import.meta.dirname, '../../../bin/cloudctl.js');

/**
 * The run's bounds: examples per operation and round, and the whole run's time, which schemathesis
 * fills by fuzzing again with new examples until it is spent. The seed makes a run repeatable.
 */
const MAX_EXAMPLES = 25;
const FUZZ_SECONDS = 90;
const SEED = 20261123;
/** The budget, the server's start and schemathesis' own start, with room for a loaded machine. */
const TEST_TIMEOUT_MS = (FUZZ_SECONDS + 90) * 1000;

interface Serve {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

let dir: string;
let serve: Serve;
const token = randomBytes(24).toString('hex');

/** Starts `cloudctl serve` on free ports and waits until /ready answers 200. */
async function startServe(): Promise<Serve> {
  const [grpcPort, httpPort] = [await freePort(), await freePort()];
  const config = join(dir, 'cloudctl.yaml');
  await writeFile(
    config,
    [
      `grpc: { host: 127.0.0.1, port: ${grpcPort} }`,
      `http: { host: 127.0.0.1, port: ${httpPort} }`,
      `database: { dataDir: ${JSON.stringify(join(dir, 'db'))} }`,
      'users:',
      `  - { name: fuzzer, tokenHash: "${hashToken(token)}", roles: [admins] }`,
      'auth: { adminRoles: [admins] }',
      'logging: { level: warn }',
      '',
    ].join('\n'),
  );
  const child = spawn(process.execPath, [BIN, 'serve', '--config', config], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const url = `http://127.0.0.1:${httpPort}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (gone) throw new Error(`cloudctl serve exited before it was ready:\n${output}`);
    const status = await fetch(`${url}/ready`).then(
      (answer) => answer.status,
      () => 0,
    );
    if (status === 200) return { child, url, output: () => output, exited };
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`cloudctl serve was not ready within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-fuzz-'));
  for (let attempt = 1; ; attempt++) {
    try {
      serve = await startServe();
      break;
    } catch (error) {
      // Another process may take a port between freePort() and the bind.
      if (attempt >= 3 || !(error instanceof Error) || !isAddressInUse(error.message)) throw error;
    }
  }
});

afterAll(async () => {
  if (serve !== undefined) {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
  await rm(dir, { recursive: true, force: true });
});

describe('the HTTP API under schemathesis', () => {
  it('answers every generated request as its Swagger document says', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    expectSchemathesis();
    const settings = await settingsFor(serve.url, dir);
    const run = await runSchemathesis(
      dir,
      runArguments({
        settings,
        url: serve.url,
        token,
        maxExamples: MAX_EXAMPLES,
        seconds: FUZZ_SECONDS,
        seed: SEED,
      }),
    );
    const report = `schemathesis ${run.output}\n--- cloudctl's log ---\n${serve.output()}`;
    // Selected is every documented operation here: the whole API.
    expect(/Selected: (\d+)\/\1\s/.test(run.output), report).toBe(true);
    expectEveryOperationTested(run, report);
  });

  it('refuses U+0000 in a path, query or body with 400 naming where, not a 500 from the database', async () => {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const nul = 'contains the character U+0000, which cloudctl does not store';
    const cases: Array<[string, RequestInit, string]> = [
      ['/task/a%00b', { headers }, `path parameter id: ${nul}`],
      ['/elasticIps/a?region=a%00b', { headers }, `query parameter region: ${nul}`],
      [
        '/ops/deployManifest',
        { method: 'POST', headers, body: JSON.stringify({ manifests: [{ name: 'a\u0000b' }] }) },
        `body.manifests[0].name: ${nul}`,
      ],
    ];
    for (const [path, init, message] of cases) {
      const answer = await fetch(`${serve.url}${path}`, init);
      expect(answer.status, path).toBe(400);
      expect(await answer.json(), path).toMatchObject({ code: 'REQUEST_INVALID', message });
    }
  });
});
