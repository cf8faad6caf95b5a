// A watch stream is read a chunk at a time, and a chunk holds as many events as the API server wrote
// into it (kube-http.ts yields them together). When a streaming list's end bookmark shares its chunk
// with the first changes after it, those changes belong to the watch that goes on: none may be lost
// or taken into the snapshot. The scripted API server writes the whole answer as one chunk, as a busy
// API server does; the real one cannot be made to on cue.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configMap,
  initialEventsEnd,
  type ScriptedApiServer,
  startScriptedApiServer,
  watchLines,
  watchUntil,
} from './scripted-api-server.ts';

let server: ScriptedApiServer;

beforeAll(async () => {
  server = await startScriptedApiServer((_request, response, index) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    // The first watch (the streaming list) gets everything at once and stays open; any later one
    // (which a lost change would not bring back) stays open and silent.
    if (index === 0)
      response.write(
        watchLines([
          { type: 'ADDED', object: configMap('a', '10') },
          { type: 'ADDED', object: configMap('b', '11') },
          initialEventsEnd('12'),
          { type: 'MODIFIED', object: configMap('a', '13') },
          { type: 'ADDED', object: configMap('c', '14') },
        ]),
      );
  });
});

afterAll(async () => {
  await server?.close();
});

describe('a watch chunk holding the end of a streaming list and the changes after it', () => {
  it('sends the objects before the bookmark as the snapshot and those after it as the watch’s changes', async () => {
    const { items } = await watchUntil(server, (taken) =>
      taken.some((item) => item.type === 'event' && item.name === 'c'),
    );
    // The buffer coalesces by object: `a`'s change replaces its snapshot entry if both were still
    // unsent; either way `c` and `a@13` must be there, as changes of the watch, not of the snapshot.
    expect(items).toContain('snapshotBegin');
    expect(items).toContain('snapshotEnd');
    expect(items).toContain('ADDED b@11 snapshot');
    expect(items).toContain('MODIFIED a@13 watch');
    expect(items).toContain('ADDED c@14 watch');
    expect(items.indexOf('ADDED c@14 watch')).toBeGreaterThan(items.indexOf('snapshotEnd'));
    expect(server.requests).toHaveLength(1);
  });
});
