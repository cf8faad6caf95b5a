// Talks to a Vault (or OpenBao) server for the `vault` engine: reads KV v2 secrets, with a token given
// to it (`authMethod: TOKEN`) or one obtained by logging in with the pod's service account token
// (`authMethod: KUBERNETES`, `auth/<path>/login`). The Vault token is kept in this closure only: it
// is never part of a message, and a failed login names the role and mount, not the JWT.
import { errorCode, isRecord } from '../lib/is-record.ts';
import { SecretResolutionError } from './secret-engine.ts';
import type { VaultSettings } from './secrets-store.ts';

/** A Vault that accepts connections but never answers must not hold the agent's start forever. */
export const VAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface VaultClientDeps {
  fetch: typeof globalThis.fetch;
  /** The token for `authMethod: TOKEN` (the setting, else VAULT_TOKEN); undefined when there is none. */
  token(): Promise<string | undefined>;
  /** The service account JWT for `authMethod: KUBERNETES`. */
  serviceAccountToken(): Promise<string>;
  /** Default VAULT_REQUEST_TIMEOUT_MS. */
  timeoutMs?: number;
}

export type KvRead = { found: true; data: Record<string, unknown> } | { found: false };

export interface VaultClient {
  /** The latest version of the KV v2 secret at `path` in the engine mounted at `mount`. */
  readKv2(mount: string, path: string): Promise<KvRead>;
}

function vaultErrors(body: unknown): string {
  const errors = isRecord(body) && Array.isArray(body.errors) ? body.errors : [];
  const text = errors.filter((e) => typeof e === 'string').join('; ');
  return text || 'no reason given';
}

const trimSlashes = (s: string) => s.replace(/^\/+|\/+$/g, '');
/** A Vault path in a URL: each segment escaped, so a name with spaces or `?` stays one path. */
const urlPath = (s: string) => trimSlashes(s).split('/').map(encodeURIComponent).join('/');

type VaultCall = (
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) => Promise<{ status: number; body: unknown }>;

/** Calls Vault's HTTP API under /v1 with the namespace header; an unreachable Vault is SECRET_UNREACHABLE. */
function vaultHttp(settings: VaultSettings, deps: VaultClientDeps): VaultCall {
  const base = (settings.url ?? '').replace(/\/+$/, '');
  const namespaceHeader: Record<string, string> =
    settings.namespace === undefined ? {} : { 'X-Vault-Namespace': settings.namespace };
  const timeoutMs = deps.timeoutMs ?? VAULT_REQUEST_TIMEOUT_MS;
  return async (method, path, headers, body) => {
    let response: Response;
    try {
      response = await deps.fetch(`${base}/v1/${path}`, {
        method,
        headers: {
          ...namespaceHeader,
          ...headers,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      if (error instanceof Error && error.name === 'TimeoutError') {
        throw new SecretResolutionError(
          'SECRET_UNREACHABLE',
          `Vault at ${base} did not answer within ${timeoutMs / 1000} s`,
        );
      }
      const cause = isRecord(error) && 'cause' in error ? error.cause : error;
      throw new SecretResolutionError(
        'SECRET_UNREACHABLE',
        `cannot reach Vault at ${base}: ${errorCode(cause)}`,
      );
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed };
  };
}

/** What a KV v2 read answered, as the client's result or the error that names why it failed. */
function kv2Result(
  answer: { status: number; body: unknown },
  mount: string,
  where: string,
  settings: VaultSettings,
): { found: false } | { found: true; data: Record<string, unknown> } {
  if (answer.status === 404) {
    const errors = vaultErrors(answer.body);
    // KV v2 answers a missing secret with an empty error list; anything else is a missing mount.
    if (errors !== 'no reason given') {
      throw new SecretResolutionError(
        'SECRET_NOT_FOUND',
        `Vault has no KV engine mounted at '${trimSlashes(mount)}' (${errors})`,
      );
    }
    return { found: false };
  }
  if (answer.status === 403) {
    const how =
      settings.authMethod === 'TOKEN'
        ? 'the token is invalid, expired, or has no policy that allows reading it'
        : `role '${settings.role}' has no policy that allows reading it`;
    throw new SecretResolutionError(
      'SECRET_FORBIDDEN',
      `Vault denied reading ${where}: ${how} (${vaultErrors(answer.body)})`,
    );
  }
  if (answer.status !== 200) {
    throw new SecretResolutionError(
      'SECRET_UNREACHABLE',
      `Vault answered HTTP ${answer.status} reading ${where}: ${vaultErrors(answer.body)}`,
    );
  }
  const outer = isRecord(answer.body) && isRecord(answer.body.data) ? answer.body.data : undefined;
  if (!isRecord(outer?.data)) {
    throw new SecretResolutionError(
      'SECRET_NOT_FOUND',
      `Vault's answer for ${where} is not a KV version 2 secret; is '${trimSlashes(mount)}' a KV v2 engine?`,
    );
  }
  return { found: true, data: outer.data };
}

export function vaultClient(settings: VaultSettings, deps: VaultClientDeps): VaultClient {
  const call = vaultHttp(settings, deps);
  let loggedIn: Promise<string> | undefined;

  async function login(): Promise<string> {
    const mount = trimSlashes(settings.path);
    const jwt = await deps.serviceAccountToken();
    const answer = await call('POST', `auth/${urlPath(mount)}/login`, {}, { role: settings.role, jwt });
    const auth = isRecord(answer.body) && isRecord(answer.body.auth) ? answer.body.auth : undefined;
    if (answer.status !== 200 || typeof auth?.client_token !== 'string') {
      throw new SecretResolutionError(
        'SECRET_FORBIDDEN',
        `Vault refused the Kubernetes login as role '${settings.role}' at auth/${mount} (HTTP ${answer.status}: ${vaultErrors(answer.body)})`,
      );
    }
    return auth.client_token;
  }

  async function token(fresh: boolean): Promise<string> {
    if (settings.authMethod === 'TOKEN') {
      const value = await deps.token();
      if (value === undefined || value === '') {
        throw new SecretResolutionError(
          'SECRET_ENGINE_SETTINGS',
          'Vault authMethod TOKEN needs secrets.store.vault.token or the VAULT_TOKEN environment variable',
        );
      }
      return value;
    }
    if (fresh || loggedIn === undefined) {
      const attempt = login();
      loggedIn = attempt;
      // A failed login is not kept (unless a newer one replaced it): the next reference tries again.
      attempt.catch(() => {
        if (loggedIn === attempt) loggedIn = undefined;
      });
    }
    return loggedIn;
  }

  return {
    async readKv2(mount, path) {
      const where = `${trimSlashes(mount)}/data/${trimSlashes(path)}`;
      const url = `${urlPath(mount)}/data/${urlPath(path)}`;
      let answer = await call('GET', url, { 'X-Vault-Token': await token(false) });
      // A token from an earlier login may have expired: log in once more before giving up.
      if (answer.status === 403 && settings.authMethod === 'KUBERNETES') {
        answer = await call('GET', url, { 'X-Vault-Token': await token(true) });
      }
      return kv2Result(answer, mount, where, settings);
    },
  };
}
