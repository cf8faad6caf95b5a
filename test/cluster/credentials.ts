// The secrets a test cluster is started with, made fresh per cluster with node:crypto so no x509
// tooling is needed: the admin bearer token (a static token file entry in group system:masters, the
// group RBAC lets do anything) and the key pair that signs and verifies service-account tokens.
// The API server generates its own serving certificate (--cert-dir); see kube-apiserver.ts.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface ClusterCredentials {
  readonly adminToken: string;
  /** `--token-auth-file`: `token,user,uid,"groups"`. */
  readonly tokenFile: string;
  /** PKCS#8 EC private key: `--service-account-signing-key-file`, and the controller manager's key. */
  readonly serviceAccountKeyFile: string;
  /** SPKI public key: `--service-account-key-file`, to verify what the private key signed. */
  readonly serviceAccountPublicKeyFile: string;
}

export const ADMIN_USER = 'orch-agent-test-admin';

export async function writeCredentials(dir: string): Promise<ClusterCredentials> {
  const adminToken = randomBytes(32).toString('base64url');
  const tokenFile = join(dir, 'tokens.csv');
  await writeFile(tokenFile, `${adminToken},${ADMIN_USER},${ADMIN_USER},"system:masters"\n`, { mode: 0o600 });
  // P-256 rather than RSA: generated in microseconds, and ES256 is a signing algorithm the API
  // server supports for service-account tokens.
  const { privateKey, publicKey } = generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const serviceAccountKeyFile = join(dir, 'sa.key');
  const serviceAccountPublicKeyFile = join(dir, 'sa.pub');
  await writeFile(serviceAccountKeyFile, privateKey, { mode: 0o600 });
  await writeFile(serviceAccountPublicKeyFile, publicKey);
  return { adminToken, tokenFile, serviceAccountKeyFile, serviceAccountPublicKeyFile };
}
