// A streaming list that fails (here as a busy API server fails it: an ERROR event "Too large resource
// version", its watch cache not yet at the current version) is listed by pages this once, as
// client-go's reflector does, and the watch goes on from the paginated list's version; the scope
// still streams its next list (the failure is not a refusal). Before, the scope retried the streaming
// list after a backoff, and a thousand scopes of a busy API server stayed unlisted for minutes.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configMap,
  type ScriptedApiServer,
  startScriptedApiServer,
  watchLines,
  watchUntil,
} from './scripted-api-server.ts';

const TOO_LARGE = {
  type: 'ERROR',
  object: {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    message: 'Timeout: Too large resource version: 4978, current: 4977',
    reason: 'Timeout',
    code: 504,
  },
};

const FORBIDDEN = {
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  message: 'configmaps is forbidden: User "system:serviceaccount:x:agent" cannot watch resource "configmaps"',
  reason: 'Forbidden',
  code: 403,
};

let server: ScriptedApiServer;
/** Refuses every request as RBAC would; a paginated list, if asked, would be answered. */
let denied: ScriptedApiServer;
/** Cuts a streaming list's connection after its first event, as a dying API server does. */
let cutting: ScriptedApiServer;

/** The paginated list both servers answer, and the watch after it: one change, then open and silent. */
function answerList(query: URLSearchParams, response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  if (query.get('watch') === 'true') {
    response.write(watchLines([{ type: 'ADDED', object: configMap('c', '21') }]));
  } else {
    response.end(
      JSON.stringify({
        kind: 'ConfigMapList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '20' },
        items: [configMap('a', '10'), configMap('b', '11')],
      }),
    );
  }
}

beforeAll(async () => {
  denied = await startScriptedApiServer((request, response) => {
    const query = new URL(request.url ?? '/', 'http://x').searchParams;
    if (query.get('watch') === 'true') {
      response.writeHead(403, { 'content-type': 'application/json' });
      response.end(JSON.stringify(FORBIDDEN));
    } else {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          kind: 'ConfigMapList',
          apiVersion: 'v1',
          metadata: { resourceVersion: '5' },
          items: [],
        }),
      );
    }
  });
  server = await startScriptedApiServer((request, response) => {
    const query = new URL(request.url ?? '/', 'http://x').searchParams;
    if (query.get('sendInitialEvents') !== 'true') return answerList(query, response);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(watchLines([TOO_LARGE]));
  });
  cutting = await startScriptedApiServer((request, response) => {
    const query = new URL(request.url ?? '/', 'http://x').searchParams;
    if (query.get('sendInitialEvents') !== 'true') return answerList(query, response);
    response.writeHead(200, { 'content-type': 'application/json' });
    // The chunk is on its way before the socket goes: the agent reads an event, then the cut.
    response.write(watchLines([{ type: 'ADDED', object: configMap('a', '10') }]), () =>
      response.socket?.destroy(),
    );
  });
});

afterAll(async () => {
  await server?.close();
  await denied?.close();
  await cutting?.close();
});

/** Watches until the change after the paginated list (`c`) is taken. */
const untilWatched = (target: ScriptedApiServer) =>
  watchUntil(target, (taken) => taken.some((item) => item.type === 'event' && item.name === 'c'));

/** What the paginated list and the watch after it give, from its snapshot's begin. */
const LISTED_BY_PAGES = [
  'snapshotBegin',
  'ADDED a@10 snapshot',
  'ADDED b@11 snapshot',
  'snapshotEnd',
  'ADDED c@21 watch',
];

describe('a streaming list that fails', () => {
  it('is listed by pages this once, and the watch goes on from that list’s version', async () => {
    const { items, methods, refusals, failures } = await untilWatched(server);
    expect(items).toEqual(LISTED_BY_PAGES);
    expect(methods).toEqual(['pages']);
    expect(refusals).toEqual([]);
    expect(failures.map(String)).toEqual([expect.stringContaining('Too large resource version')]);
    const paths = server.requests.map((url) => new URL(url, 'http://x').searchParams);
    expect(paths.map((query) => query.get('sendInitialEvents'))).toEqual(['true', null, null]);
    // The watch starts where the paginated list ended.
    expect(paths[2]?.get('resourceVersion')).toBe('20');
  });

  it('cut mid-stream is listed by pages this once, and the cause names the server that cut it', async () => {
    const { items, methods, failures } = await untilWatched(cutting);
    // The cut stream's snapshot never ends; the paginated list's, begun anew, decides what is stored.
    expect(items).toEqual(['snapshotBegin', 'ADDED a@10 snapshot', ...LISTED_BY_PAGES]);
    expect(methods).toEqual(['pages']);
    expect(failures.map(String)).toEqual([
      `WatchCutError: the watch stream from ${cutting.url} was cut: UND_ERR_SOCKET`,
    ]);
  });

  it('refused by RBAC is not listed by pages: the refusal is the scope’s, as a list would be refused too', async () => {
    const started = performance.now();
    const { items, methods, failures } = await watchUntil(denied, () => performance.now() - started > 1000);
    expect(items).toEqual([]);
    expect(methods).toEqual([]);
    expect(failures).toEqual([]);
    // Only streaming lists were asked (the first, and any retry after the backoff): never a page.
    expect(denied.requests.length).toBeGreaterThan(0);
    for (const url of denied.requests)
      expect(new URL(url, 'http://x').searchParams.get('sendInitialEvents')).toBe('true');
  });

  it('out of reach is not listed by pages: the failure is the scope’s, retried after its backoff', async () => {
    const gone = await startScriptedApiServer(() => undefined);
    await gone.close();
    const started = performance.now();
    const { items, failures } = await watchUntil(gone, () => performance.now() - started > 1000);
    expect(items).toEqual([]);
    expect(failures).toEqual([]);
  });
});
