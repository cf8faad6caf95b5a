// Client ids, secrets and access tokens: random values from node:crypto, stored as SHA-256 hashes.
// A plain SHA-256 is enough because every secret and token is 32 random bytes (256 bits): there is
// no dictionary to try, so a slow hash (scrypt) would add nothing but CPU spent on every token
// request, which anyone can send. Hashes are compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function newClientId(): string {
  return randomBytes(16).toString('hex');
}

/** 32 random bytes, base64url: safe in a form field, a header and a shell line. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSecret(secret: string): string {
  return `sha256:${createHash('sha256').update(secret, 'utf8').digest('hex')}`;
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const given = Buffer.from(hashSecret(secret));
  const stored = Buffer.from(storedHash);
  return given.length === stored.length && timingSafeEqual(given, stored);
}
