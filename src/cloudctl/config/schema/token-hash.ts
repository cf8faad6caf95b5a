// Bearer tokens (of agents and users) are configured by their SHA-256, never in clear.
import { z } from 'zod';

/** A token is never stored, only its SHA-256: a leaked config file does not leak credentials. */
export const TOKEN_HASH = /^sha256:[0-9a-f]{64}$/;

export const tokenHashSchema = () =>
  z.string().regex(TOKEN_HASH, 'expected sha256:<64 lowercase hex digits> (printf %s "$TOKEN" | sha256sum)');
