// mTLS: with a client CA configured, only certificates it signed get through the handshake, and the
// certificate's CN must be a configured agent; the CN is then the agent's identity (no token needed).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials, status } from '@grpc/grpc-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CertificateAuthority, createCa, issueLoopbackServer } from '../support/pki.ts';
import { tlsHandshake } from '../support/tls-handshake.ts';
import { helloFor, startTestControlPlane, TestAgent, type TestControlPlane } from './harness.ts';

let dir: string;
let ca: CertificateAuthority;
let cp: TestControlPlane;
const agents: TestAgent[] = [];

async function clientWith(issuer: CertificateAuthority, commonName: string): Promise<TestAgent> {
  const client = await issuer.issue({ commonName, usage: 'client' });
  const creds = credentials.createSsl(
    Buffer.from(ca.certPem),
    Buffer.from(client.keyPem),
    Buffer.from(client.certPem),
  );
  const agent = new TestAgent(cp.address, { creds });
  agents.push(agent);
  return agent;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-mtls-'));
  ca = await createCa();
  const server = await issueLoopbackServer(ca);
  await writeFile(join(dir, 'server.crt'), server.certPem);
  await writeFile(join(dir, 'server.key'), server.keyPem);
  await writeFile(join(dir, 'clients-ca.crt'), ca.certPem);
  cp = await startTestControlPlane({
    agents: [{ id: 'agent-1' }],
    grpc: {
      tls: {
        certFile: join(dir, 'server.crt'),
        keyFile: join(dir, 'server.key'),
        clientCaFile: join(dir, 'clients-ca.crt'),
      },
    },
  });
});

afterEach(() => {
  for (const a of agents.splice(0)) a.close();
});

afterAll(async () => {
  await cp?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('client certificate authentication', () => {
  it('accepts a certificate from the client CA whose CN is a configured agent', async () => {
    const agent = await clientWith(ca, 'agent-1');
    const registered = await agent.connect(helloFor('agent-1', ['mtls-a']));
    expect(registered.registered?.cache.map((c) => c.account)).toEqual(['mtls-a']);
    expect(cp.plane.registry.list().map((s) => s.agentId)).toEqual(['agent-1']);
  });

  it('refuses a certificate from an unknown CA during the handshake, and only for its issuer', async () => {
    const otherCa = await createCa('some other CA');
    const stranger = await clientWith(otherCa, 'agent-1');
    stranger.openSession().write({ hello: helloFor('agent-1', ['mtls-b']) });
    expect((await stranger.sessionEnded)?.code).toBe(status.UNAVAILABLE);
    expect(await cp.plane.store.agents.account('mtls-b')).toBeUndefined();
    // UNAVAILABLE is also what a stopped server gives: on a raw socket the same server closes the
    // connection after the handshake for this certificate, and answers HTTP/2 for one its CA signed.
    const cert = await otherCa.issue({ commonName: 'agent-1', usage: 'client' });
    expect(
      await tlsHandshake(cp.address, { ca: ca.certPem, certPem: cert.certPem, keyPem: cert.keyPem }),
    ).toBe('closed after handshake');
    const good = await ca.issue({ commonName: 'agent-1', usage: 'client' });
    expect(
      await tlsHandshake(cp.address, { ca: ca.certPem, certPem: good.certPem, keyPem: good.keyPem }),
    ).toBe('accepted');
  });

  it('refuses a client without a certificate during the handshake, with the certificate-required alert', async () => {
    const bare = new TestAgent(cp.address, { creds: credentials.createSsl(Buffer.from(ca.certPem)) });
    agents.push(bare);
    bare.openSession().write({ hello: helloFor('agent-1', ['mtls-c']) });
    const ended = await bare.sessionEnded;
    expect(ended?.code).toBe(status.UNAVAILABLE);
    expect(ended?.details).toMatch(/alert certificate required/i);
    expect(await tlsHandshake(cp.address, { ca: ca.certPem })).toMatch(/alert certificate required/i);
  });

  it('refuses with PERMISSION_DENIED a valid certificate whose CN is not a configured agent', async () => {
    const unknown = await clientWith(ca, 'agent-9');
    unknown.openSession().write({ hello: helloFor('agent-9', ['mtls-d']) });
    expect(await unknown.sessionEnded).toMatchObject({
      code: status.PERMISSION_DENIED,
      details: 'client certificate CN=agent-9 is not a configured agent',
    });
    expect(
      cp.logs.some(
        (l) => l.msg === 'refused agent call: client certificate CN=agent-9 is not a configured agent',
      ),
    ).toBe(true);
    expect(await cp.plane.store.agents.account('mtls-d')).toBeUndefined();
  });
});
