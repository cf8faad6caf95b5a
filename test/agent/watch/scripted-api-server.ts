// An API server that answers as a test scripts it, over a real socket (plain HTTP): for what the real
// one cannot be made to do on cue, such as writing a streaming list's end and later changes in one
// chunk, or failing a streaming list while it serves paginated ones. With a ScopeWatcher on its
// ConfigMaps, whose items a test takes from the buffer.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { CacheItem } from '../../../src/agent/watch/cache-item.ts';
import { KubeHttp } from '../../../src/kube/index.ts';
import { configMapScopeWatcher } from './watch-fixture.ts';

export const SCRIPTED_NAMESPACE = 'scripted';

export interface ScriptedApiServer {
  url: string;
  /** Each request's URL, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** Starts the server; `answer` gets each request and its index (0 for the first). */
export async function startScriptedApiServer(
  answer: (request: IncomingMessage, response: ServerResponse, index: number) => void,
): Promise<ScriptedApiServer> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(request.url ?? '');
    answer(request, response, requests.length - 1);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A ConfigMap of the scripted namespace. */
export const configMap = (name: string, resourceVersion: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: SCRIPTED_NAMESPACE, resourceVersion, uid: `uid-${name}` },
  data: { key: name },
});

/** The lines of a watch answer, each event as the API server writes it. */
export const watchLines = (events: readonly { type: string; object: unknown }[]) =>
  events.map((event) => `${JSON.stringify(event)}\n`).join('');

/** The bookmark that ends a streaming list's initial events at `resourceVersion`. */
export const initialEventsEnd = (resourceVersion: string) => ({
  type: 'BOOKMARK',
  object: {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { resourceVersion, annotations: { 'k8s.io/initial-events-end': 'true' } },
  },
});

/** A kubeconfig for the server. */
export function scriptedKubeConfig(server: ScriptedApiServer): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    // client-node refuses plain HTTP unless TLS verification is off; there is no TLS to verify.
    clusters: [{ name: 'c', server: server.url, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

/**
 * Runs a ScopeWatcher on the server's ConfigMaps until `done` says so of the items taken so far (or
 * `limitMs` passes: it throws), then stops it; answers the items and what its observer saw.
 */
export async function watchUntil(
  server: ScriptedApiServer,
  done: (items: readonly CacheItem[]) => boolean,
  limitMs = 10_000,
) {
  const { watcher, buffer, ...seen } = configMapScopeWatcher(
    new KubeHttp(scriptedKubeConfig(server), server.url),
    'scripted',
    SCRIPTED_NAMESPACE,
  );
  const controller = new AbortController();
  const running = watcher.run(controller.signal);
  const items: CacheItem[] = [];
  const started = performance.now();
  try {
    for (;;) {
      items.push(...buffer.takeNow(1000));
      if (done(items)) break;
      if (performance.now() - started > limitMs)
        throw new Error(`not within ${limitMs} ms; items so far: ${JSON.stringify(describe(items))}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    controller.abort();
    await running.catch(() => undefined);
  }
  return { items: describe(items), ...seen };
}

/** Items as short lines: `snapshotBegin`, `ADDED a@10 snapshot`, `MODIFIED a@13 watch`, … */
function describe(items: readonly CacheItem[]): string[] {
  return items.map((item) =>
    item.type === 'event'
      ? `${item.event} ${item.name}@${item.resourceVersion} ${item.snapshotId === '' ? 'watch' : 'snapshot'}`
      : item.type,
  );
}
