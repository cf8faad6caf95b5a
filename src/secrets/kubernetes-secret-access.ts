// How the `k8s` engine reaches Secrets: with the running program's own identity (the agent's, or
// cloudctl's), never an account's. In a pod (KUBERNETES_SERVICE_HOST set) that is the pod's service
// account, and a reference without `ns:` reads the program's namespace from the service account's
// namespace file; run elsewhere it is the default kubeconfig (KUBECONFIG, then ~/.kube/config) and
// the namespace of its current context, else `default`, as kubectl does. Credentials are loaded at
// the first fetch, so `config validate` and configs without `k8s` references never need them.
import { readFile } from 'node:fs/promises';
import {
  type KubeAccount,
  KubeApiError,
  KubeConfigError,
  KubeHttp,
  KubeTransportError,
  resolveKubeConfig,
} from '../kube/index.ts';
import type { KubernetesSecretAccess, KubernetesSecretRead } from './kubernetes-secret-engine.ts';
import { SecretResolutionError } from './secret-engine.ts';

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** An API server that never answers must not hold the agent's start forever. */
export const SECRET_READ_TIMEOUT_MS = 30_000;

export interface KubernetesSecretAccessOptions {
  env: NodeJS.ProcessEnv;
  /** Prefix of the service account files, as for accounts; '' is the real `/var/run/secrets/...`. */
  serviceAccountRoot?: string;
  /** Default SECRET_READ_TIMEOUT_MS. */
  timeoutMs?: number;
  /** `orchestrator.noProxy`: the API server is reached without the proxy environment variables. */
  noProxy?: boolean;
}

interface Client {
  http: KubeHttp;
  namespace(): Promise<string>;
}

function connect(options: KubernetesSecretAccessOptions): Client {
  const inCluster = Boolean(options.env.KUBERNETES_SERVICE_HOST);
  // The program's own identity, resolved the way an account's is (proxy variables, in-cluster
  // address): an account entry with every other setting at the account schema's default.
  const identity: KubeAccount = { serviceAccount: inCluster, context: '', insecure: false, noProxy: false };
  let resolved: ReturnType<typeof resolveKubeConfig>;
  try {
    resolved = resolveKubeConfig(identity, {
      env: options.env,
      noProxy: options.noProxy ?? false,
      ...(options.serviceAccountRoot === undefined ? {} : { serviceAccountRoot: options.serviceAccountRoot }),
    });
  } catch (error) {
    if (!(error instanceof KubeConfigError)) throw error;
    // The account-oriented message would point at orchConfigFile; say what this engine looked for.
    const looked = inCluster
      ? "the pod's service account"
      : 'a kubeconfig (KUBECONFIG, then ~/.kube/config), the agent not being in a pod (KUBERNETES_SERVICE_HOST unset)';
    throw new SecretResolutionError(
      'SECRET_ENGINE_SETTINGS',
      `cannot read Kubernetes Secrets: no credentials from ${looked}: ${error.message}`,
    );
  }
  const http = new KubeHttp(
    resolved.kubeConfig,
    resolved.server,
    resolved.tokenSource === undefined ? {} : { tokenSource: resolved.tokenSource },
  );
  if (inCluster) {
    const file = `${options.serviceAccountRoot ?? ''}${SERVICE_ACCOUNT_DIR}/namespace`;
    return {
      http,
      namespace: async () => {
        const fromFile = await readFile(file, 'utf8').then(
          (text) => text.trim(),
          () => '',
        );
        const namespace = fromFile || options.env.POD_NAMESPACE;
        if (!namespace) {
          throw new SecretResolutionError(
            'SECRET_ENGINE_SETTINGS',
            `the k8s engine needs 'ns:' here: the agent's namespace is unknown (${file} is unreadable and POD_NAMESPACE is not set)`,
          );
        }
        return namespace;
      },
    };
  }
  const context = resolved.kubeConfig.getContextObject(resolved.kubeConfig.getCurrentContext());
  return { http, namespace: async () => context?.namespace || 'default' };
}

export function kubernetesSecretAccess(options: KubernetesSecretAccessOptions): KubernetesSecretAccess {
  const timeoutMs = options.timeoutMs ?? SECRET_READ_TIMEOUT_MS;
  let client: Client | undefined;
  const get = () => {
    client ??= connect(options);
    return client;
  };
  return {
    defaultNamespace: () => get().namespace(),
    async readSecret(namespace, name): Promise<KubernetesSecretRead> {
      const { http } = get();
      const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`;
      try {
        const { body } = await http.request({
          verb: 'get',
          method: 'GET',
          path,
          signal: AbortSignal.timeout(timeoutMs),
        });
        const data = typeof body === 'object' && body !== null && 'data' in body ? body.data : undefined;
        const entries =
          typeof data === 'object' && data !== null
            ? Object.entries(data).filter((e): e is [string, string] => typeof e[1] === 'string')
            : [];
        return { found: true, data: Object.fromEntries(entries) };
      } catch (error) {
        // The API server's messages name the user, verb and resource; they never carry Secret data.
        if (error instanceof KubeApiError && error.status === 404) {
          return { found: false, reason: 'missing', detail: error.message };
        }
        if (error instanceof KubeApiError && (error.status === 403 || error.status === 401)) {
          return { found: false, reason: 'forbidden', detail: error.message };
        }
        if (error instanceof Error && error.name === 'TimeoutError') {
          return {
            found: false,
            reason: 'unreachable',
            detail: `${http.server} did not answer within ${timeoutMs / 1000} s`,
          };
        }
        if (error instanceof KubeApiError || error instanceof KubeTransportError) {
          return { found: false, reason: 'unreachable', detail: error.message };
        }
        // client-node refuses some configurations only when it signs the request (a token over
        // plain http, say): that is the kubeconfig's problem, said as such, not a crash.
        if (error instanceof Error) return { found: false, reason: 'unreachable', detail: error.message };
        throw error;
      }
    },
  };
}
