// A watch that has passed its events on and waits, quiet, for the next keeps nothing of them: not the
// chunk they came in, not the joined line of a large object, not the events themselves. An agent has
// thousands of such watches, most of them quiet most of the time; what each held on to was its last
// object's bytes (watch-stream.ts). ScopeWatchers on ConfigMaps with large objects: on the shared
// cluster, in the list and in the watch; on a scripted server, in the chunk that ends the streaming
// list, after its end bookmark. Once the objects are in the buffer, a collection frees every byte
// they arrived in.

import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CacheItem } from '../../../src/agent/watch/cache-item.ts';
import { KubeHttp, type WatchStream } from '../../../src/kube/index.ts';
import { type ApiClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import {
  configMap,
  initialEventsEnd,
  SCRIPTED_NAMESPACE,
  scriptedKubeConfig,
  startScriptedApiServer,
  watchLines,
} from './scripted-api-server.ts';
import {
  configMapScopeWatcher,
  createConfigMap,
  createNamespace,
  deleteObject,
  msUntil,
  tokenKubeConfig,
  whileWatching,
} from './watch-fixture.ts';

const NS = 'quiet-watch-memory';
/** The events whose bytes are followed: larger than any bookmark. */
const OBSERVED_BYTES = 16 * 1024;
/** Larger than an HTTP/2 frame (16 KiB), so each object's line is joined from many chunks. */
const largeData = (fill: string) => ({ data: fill.repeat(256 * 1024) });

/**
 * The Kubernetes client the watcher is given, following the memory of each large event's bytes (with
 * a FinalizationRegistry, not WeakRefs: V8 keeps a WeakRef's target alive until the job that made it
 * ends, and Node does not always end it where a test would expect).
 */
class ObservedKubeHttp extends KubeHttp {
  /** Large events seen. */
  observed = 0;
  /** Of those, the ones whose bytes have been collected. */
  collected = 0;
  readonly #registry = new FinalizationRegistry<undefined>(() => {
    this.collected++;
  });

  override watch(...args: Parameters<KubeHttp['watch']>): WatchStream {
    const stream = super.watch(...args);
    const next = stream.next.bind(stream);
    stream.next = async () => {
      const result = await next();
      if (result.done !== true)
        for (const event of result.value)
          if (event.bytes.length > OBSERVED_BYTES) {
            this.observed++;
            this.#registry.register(event.bytes.buffer, undefined);
          }
      return result;
    };
    return stream;
  }
}

/** A ScopeWatcher on the ConfigMaps of `namespace`; `names` takes the buffer's items and names its events. */
function configMapWatcher(http: KubeHttp, namespace: string) {
  const { watcher, buffer, methods } = configMapScopeWatcher(http, 'quiet', namespace);
  const items: CacheItem[] = [];
  const names = () => {
    items.push(...buffer.takeNow(1000));
    return items.flatMap((item) => (item.type === 'event' ? [item.name] : []));
  };
  return { watcher, methods, names };
}

/** The large events whose bytes are still held, once the watch has been quiet a moment. */
async function heldAfterQuiet(http: ObservedKubeHttp): Promise<number> {
  setFlagsFromString('--expose-gc');
  const gc: () => void = runInNewContext('gc');
  // Finalization callbacks run in tasks of their own after a collection, later on a busy machine:
  // collect and look again for up to 2 s before saying what is still held.
  for (let i = 0; i < 40 && http.collected < http.observed; i++) {
    await sleep(50);
    gc();
  }
  await sleep(50);
  return http.observed - http.collected;
}

let admin: ApiClient;

beforeAll(async () => {
  admin = sharedClusterClient();
  await createNamespace(admin, NS);
  await createConfigMap(admin, NS, 'listed', largeData('l'));
});

afterAll(async () => {
  await deleteObject(admin, `/api/v1/namespaces/${NS}`);
  await admin?.close();
});

describe('a quiet watch', () => {
  it('keeps none of the bytes its listed and watched objects arrived in', async () => {
    const { server, caFile, adminToken } = sharedCluster();
    const http = new ObservedKubeHttp(tokenKubeConfig(server, caFile, adminToken), server);
    const { watcher, methods, names } = configMapWatcher(http, NS);
    await whileWatching(watcher, async () => {
      await msUntil('the large object listed', () => names().includes('listed'), 20_000);
      await createConfigMap(admin, NS, 'watched', largeData('w'));
      await msUntil('the large object watched', () => names().includes('watched'), 20_000);
      expect(methods).toEqual(['stream']);
      expect(http.observed).toBe(2);
      expect(await heldAfterQuiet(http), 'large events whose bytes a quiet watch holds').toBe(0);
    });
  });

  it('keeps none of the bytes of a change that came in the chunk that ended its list', async () => {
    // Within one read of the socket (64 KiB), so the change and the end bookmark share a chunk.
    const change = { ...configMap('after', '12'), data: { key: 'a'.repeat(2 * OBSERVED_BYTES) } };
    const scripted = await startScriptedApiServer((_request, response) => {
      // The headers first, on their own: undici keeps an HTTP/1.1 answer's raw headers, views into
      // the socket read that brought them, for as long as the request lasts.
      response.writeHead(200, { 'content-type': 'application/json' });
      response.flushHeaders();
      // Then the end bookmark and a change after it in one write; then the watch stays open, quiet.
      setTimeout(() => {
        response.write(
          watchLines([
            { type: 'ADDED', object: configMap('before', '10') },
            initialEventsEnd('11'),
            { type: 'MODIFIED', object: change },
          ]),
        );
      }, 100);
    });
    const http = new ObservedKubeHttp(scriptedKubeConfig(scripted), scripted.url);
    const { watcher, methods, names } = configMapWatcher(http, SCRIPTED_NAMESPACE);
    try {
      await whileWatching(watcher, async () => {
        await msUntil('the change after the list', () => names().includes('after'), 10_000);
        expect(methods).toEqual(['stream']);
        expect(http.observed).toBe(1);
        expect(await heldAfterQuiet(http), 'large events whose bytes a quiet watch holds').toBe(0);
      });
    } finally {
      await scripted.close();
    }
  });
});
