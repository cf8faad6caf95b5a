// The health server over TLS (`server.ssl.*`), with certificates made in the test: the server is
// verified against the test CA, an encrypted key opens with `keyFilePassword`, and `clientAuth`
// decides what happens to clients without a certificate or with one from another CA.
import { writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { formatIssue, loadConfig } from '../../../src/agent/config/index.ts';
import { HealthChecks, type SideServer, startHealthServer } from '../../../src/agent/observability/index.ts';
import { freePort } from '../../cluster/free-port.ts';
import {
  type CertificateAuthority,
  createCa,
  encryptKey,
  type IssuedCertificate,
  issueLoopbackServer,
} from '../../support/pki.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { writeConfig } from '../config/config-fixture.ts';

const KEY_PASSWORD = 'health-key-password-7c1e';

let ca: CertificateAuthority;
let dir: string;
let files: { caFile: string; certFile: string; keyFile: string; encryptedKeyFile: string };
let trustedClient: IssuedCertificate;
let strangerClient: IssuedCertificate;

beforeAll(async () => {
  ca = await createCa('health test CA');
  const otherCa = await createCa('unknown CA');
  const server = await issueLoopbackServer(ca, 'orch-agent health');
  trustedClient = await ca.issue({ commonName: 'prober', usage: 'client' });
  strangerClient = await otherCa.issue({ commonName: 'prober', usage: 'client' });
  dir = tempDir();
  files = {
    caFile: join(dir, 'ca.crt'),
    certFile: join(dir, 'server.crt'),
    keyFile: join(dir, 'server.key'),
    encryptedKeyFile: join(dir, 'server-encrypted.key'),
  };
  await writeFile(files.caFile, ca.certPem);
  await writeFile(files.certFile, server.certPem);
  await writeFile(files.keyFile, server.keyPem, { mode: 0o600 });
  await writeFile(files.encryptedKeyFile, encryptKey(server.keyPem, KEY_PASSWORD), { mode: 0o600 });
});

const servers: SideServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** Starts the health server from YAML `ssl` lines (indented under `server.ssl`); readiness passes. */
async function startTls(sslLines: string[]): Promise<{ port: number; server: SideServer }> {
  const port = await freePort();
  const yaml = [
    'server:',
    '  host: 127.0.0.1',
    `  port: ${port}`,
    '  ssl:',
    ...sslLines.map((line) => `    ${line}`),
    'orchestrator:\n  accounts: []',
  ].join('\n');
  const loaded = await loadConfig(writeConfig(yaml), { fetchSecrets: true });
  if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
  const checks = new HealthChecks();
  checks.register({ name: 'always', kind: 'readiness', check: () => ({ ok: true, message: 'fine' }) });
  const server = await startHealthServer(
    loaded.config.server,
    checks,
    { accounts: () => [], watches: () => [], operations: () => ({ inFlight: [], recent: [] }) },
    (error) => {
      throw error;
    },
  );
  servers.push(server);
  return { port, server };
}

type Outcome = { status: number; body: string } | { error: string };

/** GET over HTTPS on a fresh connection (no agent, no session reuse), trusting only `ca`. */
function get(
  port: number,
  path: string,
  options: { ca: string; client?: IssuedCertificate },
): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'GET',
        agent: false,
        ca: options.ca,
        ...(options.client === undefined ? {} : { cert: options.client.certPem, key: options.client.keyPem }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.end();
  });
}

const clientAuthLines = (mode: string) => [
  'enabled: true',
  `certFile: ${files.certFile}`,
  `keyFile: ${files.keyFile}`,
  `caCertFile: ${files.caFile}`,
  `clientAuth: ${mode}`,
];

describe('health server over TLS', () => {
  it('serves HTTPS whose certificate verifies against the test CA, and is refused against another CA', async () => {
    const { port, server } = await startTls([
      'enabled: true',
      `certFile: ${files.certFile}`,
      `keyFile: ${files.keyFile}`,
    ]);
    expect(server.url).toBe(`https://127.0.0.1:${port}`);
    const ready = await get(port, '/ready', { ca: ca.certPem });
    expect(ready).toMatchObject({ status: 200 });
    expect(JSON.parse('body' in ready ? ready.body : '{}')).toMatchObject({ status: 'UP' });
    const stranger = await createCa('not the server CA');
    expect(await get(port, '/ready', { ca: stranger.certPem })).toEqual({
      error: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
  });

  it('opens an encrypted key with keyFilePassword, and with its alias keyPassword', async () => {
    for (const name of ['keyFilePassword', 'keyPassword']) {
      const { port } = await startTls([
        'enabled: true',
        `certFile: ${files.certFile}`,
        `keyFile: ${files.encryptedKeyFile}`,
        `${name}: ${KEY_PASSWORD}`,
      ]);
      expect(await get(port, '/health', { ca: ca.certPem }), name).toMatchObject({ status: 200 });
    }
  });

  it('fails to start with an encrypted key and a wrong password', async () => {
    await expect(
      startTls([
        'enabled: true',
        `certFile: ${files.certFile}`,
        `keyFile: ${files.encryptedKeyFile}`,
        'keyFilePassword: not-the-password',
      ]),
    ).rejects.toThrow(/bad decrypt|BAD_DECRYPT/i);
  });

  it('with clientAuth need: refuses a client without a certificate or with one from an unknown CA in the handshake, accepts the CA-issued one', async () => {
    const { port } = await startTls(clientAuthLines('need'));
    expect(await get(port, '/ready', { ca: ca.certPem })).toEqual({
      error: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
    });
    // OpenSSL itself refuses a missing certificate with an alert; a certificate that does not verify
    // is judged by Node after the handshake, which then drops the connection before any HTTP.
    expect(await get(port, '/ready', { ca: ca.certPem, client: strangerClient })).toEqual({
      error: 'ECONNRESET',
    });
    expect(await get(port, '/ready', { ca: ca.certPem, client: trustedClient })).toMatchObject({
      status: 200,
    });
  });

  it('with clientAuth want: accepts no certificate and a CA-issued one, refuses one from an unknown CA with 403', async () => {
    const { port } = await startTls(clientAuthLines('WANT'));
    expect(await get(port, '/ready', { ca: ca.certPem })).toMatchObject({ status: 200 });
    expect(await get(port, '/ready', { ca: ca.certPem, client: trustedClient })).toMatchObject({
      status: 200,
    });
    const refused = await get(port, '/ready', { ca: ca.certPem, client: strangerClient });
    expect(refused).toMatchObject({ status: 403 });
    expect(JSON.parse('body' in refused ? refused.body : '{}')).toEqual({
      error: 'client certificate refused: UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
  });

  it('with clientAuth none: does not ask for a certificate, so even a stranger one is not checked', async () => {
    const { port } = await startTls(clientAuthLines('none'));
    expect(await get(port, '/ready', { ca: ca.certPem })).toMatchObject({ status: 200 });
    expect(await get(port, '/ready', { ca: ca.certPem, client: strangerClient })).toMatchObject({
      status: 200,
    });
  });
});
