// client-node applies a kubeconfig's TLS settings (CA, client certificate, server name, proxy) by
// building a new undici Agent for every request (`KubeConfig.createDispatcher`, called by
// `applySecurityAuthentication`), so no request reuses a connection: every list page, operation
// request and discovery call pays a TCP and TLS handshake, and at 100 accounts the agent's start was
// a storm of a thousand connects, many timing out (docs/benchmarks.md, "Many accounts"). Here the
// Agent is kept and reused for as long as the TLS material it was built from is the same; material
// that changes (an exec plugin's rotated certificate) gets a new one. Credentials in headers
// (tokens) are applied per request as before.
import { createHash, type Hash } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';

/** Distinct TLS materials whose Agents are kept per kubeconfig; the oldest goes beyond it. */
const KEPT = 4;

type CreateDispatcher = (cluster: unknown, agentOptions: Record<string, unknown>) => unknown;

const shared = new WeakSet<KubeConfig>();

function feed(hash: Hash, value: unknown): void {
  if (Array.isArray(value)) {
    hash.update(`[${value.length}`);
    for (const item of value) feed(hash, item);
    return;
  }
  if (typeof value === 'string' || Buffer.isBuffer(value)) {
    hash.update(`${typeof value}:${value.length}:`);
    hash.update(value);
    return;
  }
  hash.update(`${typeof value}:${String(value)};`);
}

/** What an Agent is built from: the cluster's address and proxy, and the TLS options. */
function materialKey(cluster: unknown, options: Record<string, unknown>): string {
  const hash = createHash('sha256');
  const c = (cluster ?? {}) as Record<string, unknown>;
  for (const value of [c.server, c.proxyUrl, c.skipTLSVerify, c.tlsServerName]) feed(hash, value);
  for (const name of ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'])
    feed(hash, options[name]);
  return hash.digest('base64');
}

/**
 * Makes the kubeconfig reuse one undici Agent per distinct TLS material. Fails at start, naming the
 * method, if a client-node upgrade no longer builds its Agents where this expects.
 */
export function shareDispatchers(kubeConfig: KubeConfig): void {
  if (shared.has(kubeConfig)) return;
  const target = kubeConfig as unknown as { createDispatcher?: CreateDispatcher };
  const create = target.createDispatcher;
  if (typeof create !== 'function')
    throw new Error(
      '@kubernetes/client-node: KubeConfig.createDispatcher is gone; update shared-dispatchers.ts',
    );
  const kept = new Map<string, unknown>();
  target.createDispatcher = (cluster, agentOptions) => {
    const key = materialKey(cluster, agentOptions);
    if (kept.has(key)) return kept.get(key);
    const dispatcher = create.call(kubeConfig, cluster, agentOptions);
    kept.set(key, dispatcher);
    // An Agent dropped here closes its connections once they idle out; requests using it go on.
    for (const old of kept.keys()) {
      if (kept.size <= KEPT) break;
      kept.delete(old);
    }
    return dispatcher;
  };
  shared.add(kubeConfig);
}
