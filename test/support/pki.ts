// Test certificates made on the spot: a CA, server certificates with SANs, client certificates with a
// common name, and client files written the ways agents meet them (key beside the certificate or
// inside the certificate file, plain or password-encrypted).
// @peculiar/x509 resolves its ASN.1 schemas through tsyringe, which needs the Reflect metadata API.
import 'reflect-metadata';
import { createPrivateKey, webcrypto } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto);

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

export interface IssuedCertificate {
  certPem: string;
  /** Unencrypted PKCS#8 PEM. */
  keyPem: string;
}

export interface IssueOptions {
  commonName: string;
  /** Server certificates: DNS names and IP addresses the certificate is valid for. */
  dnsNames?: string[];
  ipAddresses?: string[];
  usage: 'server' | 'client';
}

export interface CertificateAuthority {
  certPem: string;
  issue(options: IssueOptions): Promise<IssuedCertificate>;
}

async function keyPair(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
}

async function pkcs8Pem(key: webcrypto.CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

function validity(): { notBefore: Date; notAfter: Date } {
  const now = Date.now();
  return { notBefore: new Date(now - 60_000), notAfter: new Date(now + 24 * 3600_000) };
}

export async function createCa(name = 'orch-agent test CA'): Promise<CertificateAuthority> {
  const keys = await keyPair();
  const caCert = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${name}`,
    keys,
    signingAlgorithm: ALGORITHM,
    ...validity(),
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return {
    certPem: caCert.toString('pem'),
    async issue(options) {
      const leafKeys = await keyPair();
      const names = [
        ...(options.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
        ...(options.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
      ];
      const cert = await x509.X509CertificateGenerator.create({
        subject: `CN=${options.commonName}`,
        issuer: caCert.subject,
        publicKey: leafKeys.publicKey,
        signingKey: keys.privateKey,
        signingAlgorithm: ALGORITHM,
        ...validity(),
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([
            options.usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth,
          ]),
          ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
          await x509.AuthorityKeyIdentifierExtension.create(caCert),
        ],
      });
      return { certPem: cert.toString('pem'), keyPem: await pkcs8Pem(leafKeys.privateKey) };
    },
  };
}

/** A server certificate for loopback: `localhost`, 127.0.0.1 and ::1. */
export function issueLoopbackServer(
  ca: CertificateAuthority,
  commonName = 'cloudctl',
): Promise<IssuedCertificate> {
  return ca.issue({
    commonName,
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1', '::1'],
    usage: 'server',
  });
}

/** The key as encrypted PKCS#8 PEM (AES-256-CBC), as `openssl pkcs8 -topk8 -v2 aes256` writes it. */
export function encryptKey(keyPem: string, password: string): string {
  return createPrivateKey(keyPem)
    .export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: password })
    .toString();
}

export interface ClientFiles {
  certFile: string;
  /** Absent when the key is inside the certificate file. */
  keyFile?: string;
}

/**
 * Writes a client certificate and key into `dir` under `name`: the key in its own file, or appended
 * to the certificate file (`keyInCertFile`); encrypted with `keyPassword` when given.
 */
export async function writeClientFiles(
  dir: string,
  name: string,
  issued: IssuedCertificate,
  options: { keyInCertFile?: boolean; keyPassword?: string } = {},
): Promise<ClientFiles> {
  const keyPem =
    options.keyPassword === undefined ? issued.keyPem : encryptKey(issued.keyPem, options.keyPassword);
  const certFile = join(dir, `${name}.crt`);
  if (options.keyInCertFile) {
    await writeFile(certFile, `${issued.certPem}\n${keyPem}`, { mode: 0o600 });
    return { certFile };
  }
  const keyFile = join(dir, `${name}.key`);
  await writeFile(certFile, issued.certPem);
  await writeFile(keyFile, keyPem, { mode: 0o600 });
  return { certFile, keyFile };
}
