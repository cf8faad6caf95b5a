// Transport security of the control-plane channel (`cloudctl.insecure`, `cloudctl.tls.*`): plaintext,
// or TLS with an optional CA bundle, and mTLS with a client certificate whose key may sit beside it or
// inside the certificate file, plain or password-encrypted. grpc-js cannot read encrypted keys, so the
// key is decrypted here with node:crypto and handed over as unencrypted PKCS#8 PEM (in memory only).
import { createPrivateKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { type ChannelCredentials, credentials } from '@grpc/grpc-js';
import type { AgentConfig } from '../config/index.ts';
import { ConnectionError } from './connection-error.ts';

export type CloudctlSettings = AgentConfig['cloudctl'];
type TlsSettings = CloudctlSettings['tls'];

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

function pemBlocks(text: string): Array<{ label: string; pem: string }> {
  return [...text.matchAll(PEM_BLOCK)].map((m) => ({ label: m[1] ?? '', pem: m[0] }));
}

async function readSetting(setting: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConnectionError(
      'CLOUDCTL_TLS_FILE',
      `cloudctl.tls.${setting}: cannot read ${file}: ${reason}`,
      {
        cause: error,
      },
    );
  }
}

function isEncrypted(keyPem: string): boolean {
  return keyPem.includes('ENCRYPTED PRIVATE KEY') || keyPem.includes('Proc-Type: 4,ENCRYPTED');
}

/** The key as unencrypted PKCS#8 PEM; `source` names the setting the key came from, for errors. */
export function decryptKey(keyPem: string, password: string | undefined, source: string): string {
  if (isEncrypted(keyPem) && password === undefined) {
    throw new ConnectionError(
      'CLOUDCTL_TLS_KEY_PASSWORD',
      `${source} holds an encrypted key but cloudctl.tls.clientKeyFilePassword is not set`,
    );
  }
  try {
    return createPrivateKey({ key: keyPem, format: 'pem', passphrase: password })
      .export({ type: 'pkcs8', format: 'pem' })
      .toString();
  } catch (error) {
    if (isEncrypted(keyPem)) {
      throw new ConnectionError(
        'CLOUDCTL_TLS_KEY_PASSWORD',
        `cloudctl.tls.clientKeyFilePassword does not decrypt the key in ${source}`,
        { cause: error },
      );
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConnectionError('CLOUDCTL_TLS_FILE', `${source}: not a usable private key: ${reason}`, {
      cause: error,
    });
  }
}

async function clientIdentity(
  tls: TlsSettings,
): Promise<{ certChain: Buffer; privateKey: Buffer } | undefined> {
  if (tls.clientCertFile === undefined) return undefined;
  const certText = await readSetting('clientCertFile', tls.clientCertFile);
  const certBlocks = pemBlocks(certText);
  const certs = certBlocks.filter((b) => b.label === 'CERTIFICATE');
  if (certs.length === 0) {
    throw new ConnectionError(
      'CLOUDCTL_TLS_FILE',
      `cloudctl.tls.clientCertFile: ${tls.clientCertFile} holds no PEM certificate`,
    );
  }
  let keyPem: string;
  let source: string;
  if (tls.clientKeyFile !== undefined) {
    keyPem = await readSetting('clientKeyFile', tls.clientKeyFile);
    source = `cloudctl.tls.clientKeyFile (${tls.clientKeyFile})`;
  } else {
    const key = certBlocks.find((b) => b.label.endsWith('PRIVATE KEY'));
    if (key === undefined) {
      throw new ConnectionError(
        'CLOUDCTL_TLS_FILE',
        `cloudctl.tls.clientCertFile: ${tls.clientCertFile} holds no private key and cloudctl.tls.clientKeyFile is not set`,
      );
    }
    // Keep the DEK-Info headers of a traditional encrypted key: they sit inside the block.
    keyPem = key.pem;
    source = `cloudctl.tls.clientCertFile (${tls.clientCertFile})`;
  }
  const privateKey = decryptKey(keyPem, tls.clientKeyFilePassword, source);
  return {
    certChain: Buffer.from(certs.map((c) => c.pem).join('\n')),
    privateKey: Buffer.from(privateKey),
  };
}

/**
 * Channel credentials for the settings. Files are read once per call; the connection calls this at
 * start so a wrong path or password stops the agent with an error naming the setting.
 */
export async function channelCredentials(settings: CloudctlSettings): Promise<ChannelCredentials> {
  if (settings.insecure) return credentials.createInsecure();
  const { tls } = settings;
  // null: grpc-js falls back to Node's bundled trust store (the system store).
  const rootCerts =
    tls.cacertFile === undefined ? null : Buffer.from(await readSetting('cacertFile', tls.cacertFile));
  const identity = await clientIdentity(tls);
  const verify = tls.insecureSkipVerify
    ? { rejectUnauthorized: false, checkServerIdentity: () => undefined }
    : {};
  return credentials.createSsl(rootCerts, identity?.privateKey ?? null, identity?.certChain ?? null, verify);
}
