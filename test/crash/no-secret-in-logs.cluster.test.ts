// No secret reaches a log: a whole-system run at debug level, every line it wrote scanned for every
// secret value used in it (issue 17). `cloudctl serve` on PostgreSQL (its URL, with a password, read
// from a file) with mTLS on its gRPC endpoint; `orch-agent run` with a client key whose password comes
// from a Kubernetes Secret, its token from a command re-run every second (two runs fail after printing
// the token); the shared cluster. The run goes through the paths that handle secrets: agent
// and HTTP calls refused for wrong tokens, a user without the right, OAuth client credentials created,
// refused, exchanged twice for access tokens, used, revoked; a Secret watched and one deployed; `config
// print` and `config validate` of both programs on files holding secrets literally; a shutdown. Then
// the output of every process (agents, cloudctl, the CLI runs, the cluster's components) must hold no
// secret, as written or base64-encoded.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CloudctlDatabase, hashToken, openCloudctlDatabase } from '../../src/cloudctl/index.ts';
import { freePort } from '../cluster/free-port.ts';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../cluster/index.ts';
import { createCa, issueLoopbackServer, writeClientFiles } from '../support/pki.ts';
import { type PostgresServer, startPostgres } from '../support/postgres-server.ts';
import { type RunningProcess, startCloudctl, startProcess, waitReady } from '../support/processes.ts';

const NS = 'no-secret-in-logs';
const ACCOUNT = 'no-secret-in-logs';
const AGENT_ID = 'secrets-agent';

/** A value no program or test could print by accident. */
const secret = (what: string) => `${what}-${randomBytes(12).toString('base64url')}`;

/** Every secret of the run, by what it is. */
const SECRETS = {
  agentToken: secret('agent-token'),
  wrongAgentToken: secret('wrong-agent-token'),
  opsToken: secret('ops-token'),
  adminToken: secret('admin-token'),
  viewerToken: secret('viewer-token'),
  wrongUserToken: secret('wrong-user-token'),
  keyPassword: secret('key-password'),
  databasePassword: secret('db-password'),
  wrongClientSecret: secret('wrong-client-secret'),
  watchedSecretData: secret('watched-secret-data'),
  deployedSecretData: secret('deployed-secret-data'),
};
/** Learnt during the run: OAuth client secrets and access tokens, the cluster's admin token. */
const issued = new Map<string, string>();

let dir: string;
let postgres: PostgresServer;
let db: Kysely<CloudctlDatabase>;
let cluster: ClusterClient;
let cloudctl: RunningProcess;
let agent: RunningProcess;
let http: string;
let grpcPort: number;
/** Output of every other process of the run, by what it was. */
const outputs = new Map<string, string>();

async function call(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; form?: Record<string, string> } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const response = await fetch(`${http}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** Runs a CLI command to its end and keeps its output under `name`. */
async function runCli(name: string, bin: 'cloudctl' | 'orch-agent', args: string[]): Promise<number | null> {
  const run = startProcess(bin, args);
  const code = await new Promise<number | null>((resolve) => run.child.once('exit', resolve));
  outputs.set(name, run.output());
  return code;
}

/** The agent's config; `auth` holds the lines of its `cloudctl.auth` block. */
function agentConfig(options: { auth: string[]; keyPassword: string; healthPort: number }): string {
  return [
    'cloudctl:',
    `  grpc: 127.0.0.1:${grpcPort}`,
    '  insecure: false',
    '  tls:',
    `    cacertFile: ${join(dir, 'ca.crt')}`,
    `    clientCertFile: ${join(dir, 'agent.crt')}`,
    `    clientKeyFile: ${join(dir, 'agent.key')}`,
    `    clientKeyFilePassword: ${options.keyPassword}`,
    '  auth:',
    ...options.auth.map((line) => `    ${line}`),
    `server:\n  host: 127.0.0.1\n  port: ${options.healthPort}`,
    'orchestrator:\n  accounts:',
    `    - name: ${ACCOUNT}`,
    `      orchConfigFile: ${sharedCluster().kubeconfigPath}`,
    `      namespaces: [${NS}]`,
    '      kinds: [configMap, secret]',
    '      permissions:\n        READ: [ops]\n        WRITE: [ops]',
    'logging:\n  format: json\n  level: debug',
    '',
  ].join('\n');
}

function cloudctlConfig(database: string): string {
  return [
    `grpc:\n  host: 127.0.0.1\n  port: ${grpcPort}`,
    `  tls:\n    certFile: ${join(dir, 'cloudctl.crt')}\n    keyFile: ${join(dir, 'cloudctl.key')}`,
    `    clientCaFile: ${join(dir, 'ca.crt')}`,
    `http:\n  host: 127.0.0.1\n  port: ${new URL(http).port}`,
    `database:\n  ${database}`,
    'logging:\n  level: debug',
    `agents:\n  - id: ${AGENT_ID}\n    tokenHash: ${hashToken(SECRETS.agentToken)}`,
    'users:',
    `  - name: olga\n    tokenHash: ${hashToken(SECRETS.opsToken)}\n    roles: [ops]`,
    `  - name: root\n    tokenHash: ${hashToken(SECRETS.adminToken)}\n    roles: [admin]`,
    `  - name: vera\n    tokenHash: ${hashToken(SECRETS.viewerToken)}\n    roles: [viewer]`,
    'auth:\n  adminRoles: [admin]',
    '',
  ].join('\n');
}

function secretManifest(name: string, value: string) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: NS },
    stringData: { password: value },
  };
}

/**
 * Polls `check` until it gives a value. `of` is the process whose log the check reads: a wait that
 * fails, by its exit or by time, ends with that log, the only place the reason is.
 */
async function until<T>(what: string, check: () => Promise<T | undefined>, of?: RunningProcess): Promise<T> {
  const timeoutMs = 30_000;
  const deadline = Date.now() + timeoutMs;
  const log = () => (of === undefined ? '' : `; its output:\n${of.output()}`);
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (of !== undefined && of.child.exitCode !== null)
      throw new Error(`${what}: the process exited with ${of.child.exitCode}${log()}`);
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms${log()}`);
    await sleep(100);
  }
}

/** JSON log lines of `output` whose message matches. */
const linesMatching = (output: string, msg: RegExp) =>
  output.split('\n').filter((line) => line.startsWith('{') && msg.test(JSON.parse(line).msg ?? '')).length;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'no-secret-in-logs-'));
  cluster = sharedClusterClient();
  issued.set('cluster admin token', sharedCluster().adminToken);
  const ca = await createCa();
  const server = await issueLoopbackServer(ca);
  const client = await ca.issue({ commonName: AGENT_ID, usage: 'client' });
  await writeFile(join(dir, 'ca.crt'), ca.certPem);
  await writeFile(join(dir, 'cloudctl.crt'), server.certPem);
  await writeFile(join(dir, 'cloudctl.key'), server.keyPem, { mode: 0o600 });
  await writeClientFiles(dir, 'agent', client, { keyPassword: SECRETS.keyPassword });
  // The agent's token, printed by a command whose 3rd and 6th runs fail after printing it.
  await writeFile(join(dir, 'token'), SECRETS.agentToken, { mode: 0o600 });

  grpcPort = await freePort();
  const httpPort = await freePort();
  http = `http://127.0.0.1:${httpPort}`;
  postgres = await startPostgres();
  // Trust authentication never asks for the password, but it is in the URL cloudctl holds.
  const databaseUrl = postgres.url.replace('postgres@', `postgres:${SECRETS.databasePassword}@`);
  await writeFile(join(dir, 'database-url'), databaseUrl, { mode: 0o600 });
  await writeFile(join(dir, 'cloudctl-print.yaml'), cloudctlConfig(`url: ${databaseUrl}`));

  cloudctl = await startCloudctl(
    dir,
    'cloudctl.yaml',
    cloudctlConfig(`urlFile: ${join(dir, 'database-url')}`),
    httpPort,
  );
  db = await openCloudctlDatabase({ kind: 'postgres', url: postgres.url });

  await cluster.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  const keySecret = await cluster.request('POST', `/api/v1/namespaces/${NS}/secrets`, {
    body: secretManifest('agent-key', SECRETS.keyPassword),
  });
  expect(keySecret.status, keySecret.text).toBe(201);

  const healthPort = await freePort();
  await writeFile(
    join(dir, 'agent.yaml'),
    agentConfig({
      healthPort,
      keyPassword: `encrypted:k8s!n:agent-key!k:password!ns:${NS}`,
      auth: [
        'tokenCommand:',
        '  command: sh',
        `  args: ['-c', 'echo run >> ${join(dir, 'runs')}; cat ${join(dir, 'token')}; [ $(wc -l < ${join(dir, 'runs')}) -ne 3 ] && [ $(wc -l < ${join(dir, 'runs')}) -ne 6 ]']`,
        '  format: raw',
        '  refreshIntervalSeconds: 1',
      ],
    }),
  );
  agent = startProcess('orch-agent', ['run', '--config', join(dir, 'agent.yaml')], {
    ORCH_AGENT_ID: AGENT_ID,
    // The k8s secret engine reads the key password with the default kubeconfig.
    KUBECONFIG: sharedCluster().kubeconfigPath,
  });
  await waitReady(agent, `http://127.0.0.1:${healthPort}/ready`);
}, 120_000);

afterAll(async () => {
  await agent?.stop();
  await cloudctl?.stop();
  await db?.destroy();
  await postgres?.stop();
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a whole-system run', () => {
  it('writes no secret value to any log', async () => {
    // An agent with a wrong token is refused, and says so.
    const wrongHealthPort = await freePort();
    await writeFile(
      join(dir, 'wrong-agent.yaml'),
      agentConfig({
        healthPort: wrongHealthPort,
        keyPassword: `encrypted:k8s!n:agent-key!k:password!ns:${NS}`,
        auth: ['token: encrypted:env!n:WRONG_AGENT_TOKEN'],
      }),
    );
    const wrongAgent = startProcess('orch-agent', ['run', '--config', join(dir, 'wrong-agent.yaml')], {
      ORCH_AGENT_ID: AGENT_ID,
      KUBECONFIG: sharedCluster().kubeconfigPath,
      WRONG_AGENT_TOKEN: SECRETS.wrongAgentToken,
    });
    await until(
      'the wrong agent refused',
      async () =>
        linesMatching(wrongAgent.output(), /^the control plane refused the agent/) > 0 ? true : undefined,
      wrongAgent,
    );
    await wrongAgent.stop();
    outputs.set('agent with a wrong token', wrongAgent.output());

    // HTTP callers: a wrong token, a user without the right, the right one.
    expect((await call('GET', '/applications', { token: SECRETS.wrongUserToken })).status).toBe(401);
    const denied = await call('POST', '/ops/deployManifest', {
      token: SECRETS.viewerToken,
      body: { account: ACCOUNT, manifests: [secretManifest('denied', SECRETS.deployedSecretData)] },
    });
    expect(denied.status).toBe(403);
    const deployed = await call('POST', '/ops/deployManifest', {
      token: SECRETS.opsToken,
      body: { account: ACCOUNT, manifests: [secretManifest('deployed', SECRETS.deployedSecretData)] },
    });
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(200);
    await until(
      'the deploy task completed',
      async () => {
        const task = await call('GET', `/task/${String(deployed.body.id)}`, { token: SECRETS.opsToken });
        const status = task.body.status as { completed: boolean; failed: boolean };
        if (status.completed) expect(status.failed, JSON.stringify(task.body)).toBe(false);
        return status.completed ? true : undefined;
      },
      cloudctl,
    );

    // OAuth client credentials: created, refused with a wrong secret, exchanged twice, used, revoked.
    const created = await call('POST', '/oauth/clients', {
      token: SECRETS.adminToken,
      body: { name: 'webhook job', role: 'ops' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const clientId = String(created.body.clientId);
    issued.set('OAuth client secret', String(created.body.clientSecret));
    const wrongSecret = await call('POST', '/oauth/token', {
      form: {
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: SECRETS.wrongClientSecret,
      },
    });
    expect(wrongSecret.status).toBe(401);
    for (const n of [1, 2]) {
      const token = await call('POST', '/oauth/token', {
        body: {
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: issued.get('OAuth client secret'),
        },
      });
      expect(token.status, JSON.stringify(token.body)).toBe(200);
      issued.set(`OAuth access token ${n}`, String(token.body.access_token));
      expect((await call('GET', '/applications', { token: String(token.body.access_token) })).status).toBe(
        200,
      );
    }
    expect((await call('DELETE', `/oauth/clients/${clientId}`, { token: SECRETS.adminToken })).status).toBe(
      200,
    );
    expect((await call('GET', '/applications', { token: issued.get('OAuth access token 2') })).status).toBe(
      401,
    );

    // A Secret in a watched namespace, created and changed: cloudctl caches it without its data.
    const watched = await cluster.request('POST', `/api/v1/namespaces/${NS}/secrets`, {
      body: secretManifest('watched', 'first value, replaced below'),
    });
    expect(watched.status, watched.text).toBe(201);
    const changed = await cluster.request('PUT', `/api/v1/namespaces/${NS}/secrets/watched`, {
      body: secretManifest('watched', SECRETS.watchedSecretData),
    });
    expect(changed.status, changed.text).toBe(200);
    const newVersion = (changed.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const stored = await until(
      'the changed Secret stored',
      () =>
        db
          .selectFrom('resources')
          .select(['body', 'resource_version'])
          .where('account', '=', ACCOUNT)
          .where('kind', '=', 'Secret')
          .where('name', '=', 'watched')
          .executeTakeFirst()
          .then((row) => (row?.resource_version === newVersion ? row : undefined)),
      agent,
    );
    expect(JSON.stringify(stored.body)).not.toContain(
      Buffer.from(SECRETS.watchedSecretData).toString('base64'),
    );

    // The token command ran again and again, and failed at least once.
    await until(
      'the token refreshed and failed',
      async () => {
        const output = agent.output();
        const refreshed = linesMatching(output, /^cloudctl\.auth\.tokenCommand refreshed the token$/);
        const failed = linesMatching(output, /^cloudctl\.auth\.tokenCommand failed/);
        return refreshed >= 3 && failed >= 1 ? true : undefined;
      },
      agent,
    );

    // The CLIs on files holding the secrets as they are.
    await writeFile(
      join(dir, 'agent-print.yaml'),
      agentConfig({
        healthPort: 18082,
        keyPassword: SECRETS.keyPassword,
        auth: [`token: ${SECRETS.agentToken}`],
      }),
    );
    expect(
      await runCli('orch-agent config print', 'orch-agent', [
        'config',
        'print',
        join(dir, 'agent-print.yaml'),
      ]),
    ).toBe(0);
    expect(outputs.get('orch-agent config print')).toMatch(/clientKeyFilePassword/);
    expect(
      await runCli('orch-agent config validate', 'orch-agent', [
        'config',
        'validate',
        join(dir, 'agent-print.yaml'),
      ]),
    ).toBe(0);
    expect(
      await runCli('cloudctl config print', 'cloudctl', [
        'config',
        'print',
        join(dir, 'cloudctl-print.yaml'),
      ]),
    ).toBe(0);
    expect(outputs.get('cloudctl config print')).toMatch(/url: postgres/);
    expect(
      await runCli('cloudctl config validate', 'cloudctl', [
        'config',
        'validate',
        join(dir, 'cloudctl-print.yaml'),
      ]),
    ).toBe(0);

    // The programs' shutdown is part of the run; each exits by itself (code 0) well within the 10 s
    // after which `stop` would SIGKILL it.
    for (const [name, program] of [
      ['orch-agent', agent],
      ['cloudctl', cloudctl],
    ] as const) {
      const code = await program.stop();
      expect({ name, code, signal: program.child.signalCode }).toEqual({ name, code: 0, signal: null });
    }
    outputs.set('orch-agent run', agent.output());
    outputs.set('cloudctl serve', cloudctl.output());
    const logs = join(sharedCluster().dir, 'logs');
    for (const file of await readdir(logs)) {
      outputs.set(`cluster ${file}`, await readFile(join(logs, file), 'utf8'));
    }

    const secrets = new Map([...Object.entries(SECRETS), ...issued]);
    const leaks: string[] = [];
    for (const [what, value] of secrets) {
      const forms = [value, Buffer.from(value).toString('base64')];
      for (const [source, output] of outputs) {
        for (const line of output.split('\n')) {
          if (forms.some((form) => line.includes(form))) leaks.push(`${what} in ${source}: ${line}`);
        }
      }
    }
    // The scan saw the run: every program wrote, the two daemons at debug level.
    for (const [source, output] of outputs) {
      if (!source.startsWith('cluster ')) expect(output, source).not.toBe('');
    }
    for (const program of ['orch-agent run', 'cloudctl serve']) {
      expect(outputs.get(program), program).toContain('"level":20,');
    }
    expect(leaks).toEqual([]);
  }, 120_000);
});
