// Resolves how an account reaches its cluster, as a client-node KubeConfig: the pod's service account
// (`serviceAccount: true`), the account's `orchConfigFile`, or the standard resolution (`KUBECONFIG`,
// then `~/.kube/config`); `context` picks the context. `insecure` skips TLS verification; proxy
// environment variables are honoured unless `noProxy` (account or global) says otherwise. A user
// that signs in with Google gets a token source with the account's `oAuthScopes`
// (google-credentials.ts), which the HTTP client asks for each request's bearer token.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
// The module, not the package root: see slim-client-node.ts.
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { ProxyAgent } from 'undici';
import { CodedError } from '../lib/coded-error.ts';
import { googleTokenSourceFor } from './google-credentials.ts';
import type { BearerTokenSource } from './google-token-source.ts';

export class KubeConfigError extends CodedError<'KUBECONFIG_INVALID'> {
  constructor(message: string) {
    super('KUBECONFIG_INVALID', message);
  }
}

export interface KubeConfigOptions {
  env: NodeJS.ProcessEnv;
  /** `orchestrator.noProxy`. */
  noProxy: boolean;
  /** Where the service account files live; '' is the real `/var/run/secrets/...`. */
  serviceAccountRoot?: string;
}

function proxyFor(server: string, env: NodeJS.ProcessEnv): string | undefined {
  const url = new URL(server);
  const noProxy = (env.NO_PROXY ?? env.no_proxy ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const host = url.hostname.toLowerCase();
  if (
    noProxy.some(
      (entry) =>
        entry === '*' ||
        host === entry.replace(/^\./, '') ||
        host.endsWith(entry.startsWith('.') ? entry : `.${entry}`),
    )
  ) {
    return undefined;
  }
  const proxy =
    url.protocol === 'https:' ? (env.HTTPS_PROXY ?? env.https_proxy) : (env.HTTP_PROXY ?? env.http_proxy);
  return proxy || undefined;
}

function loadDefault(kc: KubeConfig, env: NodeJS.ProcessEnv): string {
  const paths = (env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (paths.length === 0) {
    const home = join(env.HOME ?? homedir(), '.kube', 'config');
    if (!existsSync(home)) {
      throw new KubeConfigError(
        'no cluster configuration: set orchConfigFile or serviceAccount: true, or provide KUBECONFIG or ~/.kube/config',
      );
    }
    paths.push(home);
  }
  const [first, ...rest] = paths;
  kc.loadFromFile(first ?? '');
  for (const path of rest) {
    const more = new KubeConfig();
    more.loadFromFile(path);
    kc.mergeConfig(more, true);
  }
  return paths.join(delimiter);
}

/**
 * What reaching a cluster needs of an account entry (the agent's `orchestrator.accounts[]`, or the
 * agent's own identity for the `k8s` secrets engine): the fields of the shared account schema that
 * say how, and nothing else, so this module does not depend on the config loader.
 */
export interface KubeAccount {
  serviceAccount: boolean;
  orchConfigFile?: string | undefined;
  /** '' uses the kubeconfig's current context. */
  context: string;
  insecure: boolean;
  noProxy: boolean;
  /** The scopes of a Google access token (see google-credentials.ts); absent means none given. */
  oAuthScopes?: readonly string[];
}

export interface ResolvedKubeConfig {
  kubeConfig: KubeConfig;
  server: string;
  /** Where the configuration came from, for logs and the admin view. */
  source: string;
  /** Each request's bearer token, when the user signs in with Google; the kubeconfig's otherwise. */
  tokenSource?: BearerTokenSource;
}

export function resolveKubeConfig(account: KubeAccount, options: KubeConfigOptions): ResolvedKubeConfig {
  const kc = new KubeConfig();
  let source: string;
  try {
    if (account.serviceAccount) {
      // client-node reads the API server address from process.env; the agent's environment is passed
      // in (and may differ in tests), so the address is set from it.
      const host = options.env.KUBERNETES_SERVICE_HOST;
      const port = options.env.KUBERNETES_SERVICE_PORT;
      if (!host || !port) {
        throw new KubeConfigError(
          'serviceAccount: true needs KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, which Kubernetes sets in every pod; is the agent running in a cluster?',
        );
      }
      kc.loadFromCluster(options.serviceAccountRoot);
      const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
      kc.clusters = kc.clusters.map((c) => ({ ...c, server }));
      source = 'in-cluster service account';
    } else if (account.orchConfigFile !== undefined) {
      kc.loadFromFile(account.orchConfigFile);
      source = account.orchConfigFile;
    } else {
      source = loadDefault(kc, options.env);
    }
  } catch (error) {
    if (error instanceof KubeConfigError) throw error;
    throw new KubeConfigError(
      `cannot load the cluster configuration: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (account.context !== '') {
    if (kc.getContextObject(account.context) === null) {
      const known =
        kc
          .getContexts()
          .map((c) => c.name)
          .join(', ') || 'none';
      throw new KubeConfigError(`context '${account.context}' is not in ${source} (contexts: ${known})`);
    }
    kc.setCurrentContext(account.context);
  }
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new KubeConfigError(`${source} has no current cluster`);
  const noProxy = account.noProxy || options.noProxy;
  const proxyUrl = cluster.proxyUrl ?? (noProxy ? undefined : proxyFor(cluster.server, options.env));
  const adjusted = { ...cluster, skipTLSVerify: cluster.skipTLSVerify || account.insecure, proxyUrl };
  kc.clusters = kc.clusters.map((c) => (c.name === cluster.name ? adjusted : c));
  const tokenSource = googleTokenSourceFor(kc, {
    oAuthScopes: account.oAuthScopes ?? [],
    env: options.env,
    dispatcherFor: (url) => {
      const proxy = noProxy ? undefined : proxyFor(url, options.env);
      return proxy === undefined ? undefined : new ProxyAgent(proxy);
    },
  });
  const from = account.context ? `${source} (context ${account.context})` : source;
  return {
    kubeConfig: kc,
    server: cluster.server,
    source: tokenSource === undefined ? from : `${from}, Google token for ${tokenSource.description}`,
    ...(tokenSource === undefined ? {} : { tokenSource }),
  };
}
