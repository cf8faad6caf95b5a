// Service-account tokens from the TokenRequest API (what kubelets mount into pods, and what the agent
// uses in-cluster): short-lived, bound to an audience, and allowed only what RBAC grants the account.
import { z } from 'zod';
import type { ApiClient } from './api-client.ts';

export interface TokenOptions {
  /** Default: the API server's own audience. */
  readonly audiences?: readonly string[];
  /** Default 3600; the API server accepts 600 and more. */
  readonly expirationSeconds?: number;
  /**
   * Bind the token to a Secret of the service account's namespace: deleting the Secret revokes the
   * token (the API server refuses it once its authentication cache, 10 s, forgets it).
   */
  readonly boundSecret?: { readonly name: string; readonly uid: string };
}

const TokenRequestStatus = z.object({ status: z.object({ token: z.string().min(1) }) });

/** Requests a token for an existing service account with a client allowed to create tokens. */
export async function createServiceAccountToken(
  client: ApiClient,
  namespace: string,
  serviceAccount: string,
  options: TokenOptions = {},
): Promise<string> {
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(serviceAccount)}/token`;
  const response = await client.request('POST', path, {
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: {
        audiences: options.audiences ?? [],
        expirationSeconds: options.expirationSeconds ?? 3600,
        ...(options.boundSecret === undefined
          ? {}
          : { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', ...options.boundSecret } }),
      },
    },
  });
  if (response.status !== 201) {
    throw new Error(
      `TokenRequest for ${namespace}/${serviceAccount}: HTTP ${response.status}: ${response.text}`,
    );
  }
  return TokenRequestStatus.parse(response.json).status.token;
}
