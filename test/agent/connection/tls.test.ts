// Transport security against a real TLS cloudctl that requires client certificates (mTLS): CA file,
// server name override, skip-verify, client keys beside or inside the certificate file, encrypted
// keys with their password, and refusal of a certificate from an unknown CA.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError } from '../../../src/agent/connection/index.ts';
import { startTestControlPlane, type TestControlPlane } from '../../cloudctl/harness.ts';
import {
  type CertificateAuthority,
  createCa,
  type IssuedCertificate,
  writeClientFiles,
} from '../../support/pki.ts';
import { tlsHandshake } from '../../support/tls-handshake.ts';
import { agentConfig, connectionFor, type TestConnection } from './support.ts';

const SERVER_NAME = 'cloudctl.internal';
let dir: string;
let ca: CertificateAuthority;
let client: IssuedCertificate;
let cp: TestControlPlane;
const open: TestConnection[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-tls-'));
  ca = await createCa();
  // Valid for a DNS name only: dialling 127.0.0.1 needs cloudctl.tls.serverName.
  const server = await ca.issue({ commonName: 'cloudctl', dnsNames: [SERVER_NAME], usage: 'server' });
  client = await ca.issue({ commonName: 'agent-1', usage: 'client' });
  await writeFile(join(dir, 'server.crt'), server.certPem);
  await writeFile(join(dir, 'server.key'), server.keyPem);
  await writeFile(join(dir, 'ca.crt'), ca.certPem);
  cp = await startTestControlPlane({
    agents: [{ id: 'agent-1' }],
    grpc: {
      tls: {
        certFile: join(dir, 'server.crt'),
        keyFile: join(dir, 'server.key'),
        clientCaFile: join(dir, 'ca.crt'),
      },
    },
  });
});

afterEach(async () => {
  for (const c of open.splice(0)) await c.connection.stop();
});

afterAll(async () => {
  await cp?.close();
  await rm(dir, { recursive: true, force: true });
});

function tlsConnection(tls: Record<string, unknown>): TestConnection {
  const c = connectionFor(
    agentConfig('C', {
      cloudctl: { grpc: cp.address, insecure: false, tls: { cacertFile: join(dir, 'ca.crt'), ...tls } },
      orchestrator: { reconnectTimeoutMs: 200 },
    }),
  );
  open.push(c);
  return c;
}

/**
 * Starts the connection and waits for its report of a failed session; the report must carry the TLS
 * error `handshake` names (a stopped cloudctl is refused too, but not with that). It never registers.
 */
async function expectRefused(c: TestConnection, handshake: RegExp): Promise<void> {
  await c.connection.start();
  const refusal = () =>
    c.logs.find(
      (l) => l.msg === 'cannot open a session with the control plane' && l.reason === 'unavailable',
    );
  await expect.poll(refusal, { timeout: 20_000 }).toBeDefined();
  expect(String(refusal()?.detail)).toMatch(handshake);
  expect(c.transitions.map((t) => t.state)).not.toContain('connected');
}

describe('TLS and mTLS', () => {
  it('connects with a client certificate and key file, checking the server name override', async () => {
    const files = await writeClientFiles(dir, 'plain', client);
    const c = tlsConnection({
      serverName: SERVER_NAME,
      clientCertFile: files.certFile,
      clientKeyFile: files.keyFile,
    });
    await c.connection.start();
    await c.waitFor('connected');
    expect(cp.plane.registry.list().map((s) => s.agentId)).toContain('agent-1');
  });

  it('fails when the certificate does not carry the dialled name and no serverName is set', async () => {
    const files = await writeClientFiles(dir, 'noname', client);
    await expectRefused(
      tlsConnection({ clientCertFile: files.certFile, clientKeyFile: files.keyFile }),
      /ERR_TLS_CERT_ALTNAME_INVALID.*IP: 127\.0\.0\.1 is not in the cert's list/,
    );
  });

  it('fails when serverName names another host than the certificate', async () => {
    const files = await writeClientFiles(dir, 'othername', client);
    await expectRefused(
      tlsConnection({
        serverName: 'other.internal',
        clientCertFile: files.certFile,
        clientKeyFile: files.keyFile,
      }),
      /ERR_TLS_CERT_ALTNAME_INVALID.*Host: other\.internal\. is not in the cert's altnames: DNS:cloudctl\.internal/,
    );
  });

  it('insecureSkipVerify connects without a CA file or a matching name', async () => {
    const files = await writeClientFiles(dir, 'skip', client);
    const c = tlsConnection({
      cacertFile: undefined,
      insecureSkipVerify: true,
      clientCertFile: files.certFile,
      clientKeyFile: files.keyFile,
    });
    await c.connection.start();
    await c.waitFor('connected');
  });

  it('reads the key from the certificate file when clientKeyFile is not set', async () => {
    const files = await writeClientFiles(dir, 'bundle', client, { keyInCertFile: true });
    expect(files.keyFile).toBeUndefined();
    const c = tlsConnection({ serverName: SERVER_NAME, clientCertFile: files.certFile });
    await c.connection.start();
    await c.waitFor('connected');
  });

  it('decrypts an encrypted key with clientKeyFilePassword (key file and key inside the certificate file)', async () => {
    for (const keyInCertFile of [false, true]) {
      const files = await writeClientFiles(dir, `enc-${keyInCertFile}`, client, {
        keyPassword: 's3cret',
        keyInCertFile,
      });
      const c = tlsConnection({
        serverName: SERVER_NAME,
        clientCertFile: files.certFile,
        clientKeyFile: files.keyFile,
        clientKeyFilePassword: 's3cret',
      });
      await c.connection.start();
      await c.waitFor('connected');
    }
  });

  it('a wrong key password is a clear error naming the setting', async () => {
    const files = await writeClientFiles(dir, 'wrongpw', client, { keyPassword: 's3cret' });
    const c = tlsConnection({
      serverName: SERVER_NAME,
      clientCertFile: files.certFile,
      clientKeyFile: files.keyFile,
      clientKeyFilePassword: 'not-it',
    });
    const failure = await c.connection.start().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ConnectionError);
    expect(failure).toMatchObject({ code: 'CLOUDCTL_TLS_KEY_PASSWORD' });
    expect(String(failure)).toContain('cloudctl.tls.clientKeyFilePassword does not decrypt the key');
    expect(String(failure)).not.toContain('not-it');
  });

  it('an encrypted key without a password is a clear error too', async () => {
    const files = await writeClientFiles(dir, 'nopw', client, { keyPassword: 's3cret' });
    const c = tlsConnection({
      serverName: SERVER_NAME,
      clientCertFile: files.certFile,
      clientKeyFile: files.keyFile,
    });
    await expect(c.connection.start()).rejects.toThrow(/clientKeyFilePassword is not set/);
  });

  it('cloudctl refuses a client certificate from an unknown CA', async () => {
    const stranger = await (await createCa('stranger CA')).issue({ commonName: 'agent-1', usage: 'client' });
    const files = await writeClientFiles(dir, 'stranger', stranger);
    await expectRefused(
      tlsConnection({
        serverName: SERVER_NAME,
        clientCertFile: files.certFile,
        clientKeyFile: files.keyFile,
      }),
      // TLS 1.3 refuses a client certificate after the client's handshake is done: grpc-js reports a
      // failed connection without the alert's words.
      /Failed to connect/,
    );
    // The agent sees UNAVAILABLE, as it would for a stopped server: the server itself must have
    // refused this certificate after the handshake, while taking one its CA signed.
    const handshake = (cert: IssuedCertificate) =>
      tlsHandshake(cp.address, {
        ca: ca.certPem,
        certPem: cert.certPem,
        keyPem: cert.keyPem,
        servername: SERVER_NAME,
      });
    expect(await handshake(stranger)).toBe('closed after handshake');
    expect(await handshake(client)).toBe('accepted');
  });
});
