// A Google service-account key file (the JSON `gcloud iam service-accounts keys create` writes, and
// what `GOOGLE_APPLICATION_CREDENTIALS` names): read and checked once, when the account's kubeconfig
// is resolved, so a wrong file fails the account at once, naming the file and the field, never the
// key itself.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CodedError } from '../lib/coded-error.ts';
import { errorCode, isRecord } from '../lib/is-record.ts';

export class GoogleKeyFileError extends CodedError<'GOOGLE_KEY_FILE_INVALID'> {
  constructor(file: string, problem: string) {
    super('GOOGLE_KEY_FILE_INVALID', `Google service-account key file ${file}: ${problem}`);
  }
}

const KEY_FILE_SCHEMA = z.object({
  type: z.literal('service_account'),
  client_email: z.string().min(1),
  private_key: z.string().min(1),
  private_key_id: z.string().optional(),
  token_uri: z.url({ protocol: /^https?$/ }),
});

export interface GoogleServiceAccountKey {
  /** The file it came from, for messages. */
  file: string;
  clientEmail: string;
  /** Named in the JWT header, so the token endpoint picks the matching public key. */
  privateKeyId?: string;
  privateKey: KeyObject;
  tokenUri: string;
}

export function readGoogleServiceAccountKey(file: string): GoogleServiceAccountKey {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    // The message of a JSON.parse error quotes the text around the fault, which is key material here.
    const cause = error instanceof SyntaxError ? 'not valid JSON' : errorCode(error);
    throw new GoogleKeyFileError(file, `cannot read it: ${cause}`);
  }
  const parsed = KEY_FILE_SCHEMA.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'the file';
    const type = isRecord(raw) && typeof raw.type === 'string' ? raw.type : '';
    throw new GoogleKeyFileError(
      file,
      where === 'type'
        ? `type is '${type}'; only service_account keys can sign the token request the scopes are asked in`
        : `${where}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const key = parsed.data;
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key.private_key);
  } catch {
    throw new GoogleKeyFileError(file, 'private_key is not a PEM private key');
  }
  if (privateKey.asymmetricKeyType !== 'rsa')
    throw new GoogleKeyFileError(
      file,
      `private_key is ${privateKey.asymmetricKeyType ?? 'unknown'}, not RSA`,
    );
  return {
    file,
    clientEmail: key.client_email,
    ...(key.private_key_id === undefined ? {} : { privateKeyId: key.private_key_id }),
    privateKey,
    tokenUri: key.token_uri,
  };
}
