// The profiling listener on `pprof.port`, bound to localhost (a heap snapshot holds every secret in
// memory; reach it with `kubectl port-forward`). Paths follow Go's net/http/pprof, so
// `go tool pprof http://localhost:6060/debug/pprof/profile?seconds=10` works unchanged:
//   /debug/pprof/                index
//   /debug/pprof/profile         CPU profile, pprof protobuf (`?seconds=`, 1–300, default 30)
//   /debug/pprof/heap            sampled live heap, pprof protobuf
//   /debug/pprof/heapsnapshot    full V8 heap snapshot, for Chrome DevTools
import { Session } from 'node:inspector/promises';
import type { AgentConfig } from '../../config/index.ts';
import { type RouteHandler, type SideServer, sendJson, startSideServer } from '../side-server.ts';
import { cpuProfileToPprof } from './cpu-profile.ts';
import { heapProfileToPprof } from './heap-profile.ts';

const CPU_SAMPLING_MICROS = 1000;
const HEAP_SAMPLING_BYTES = 512 * 1024;

const INDEX = `<html><head><title>/debug/pprof/</title></head><body>
<p>orch-agent profiles:</p>
<ul>
<li><a href="profile?seconds=30">profile</a>: CPU profile (pprof); ?seconds=N</li>
<li><a href="heap">heap</a>: sampled live heap (pprof)</li>
<li><a href="heapsnapshot">heapsnapshot</a>: V8 heap snapshot (Chrome DevTools)</li>
</ul>
<p>go tool pprof http://HOST:PORT/debug/pprof/profile?seconds=10</p>
</body></html>
`;

/** `/profile`: a CPU profile of `?seconds=`, one at a time. */
function cpuProfileRoute(session: Session, now: () => number): RouteHandler {
  let cpuBusy = false;
  return async (_req, res, url) => {
    const raw = url.searchParams.get('seconds') ?? '30';
    const seconds = Number(raw);
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > 300) {
      sendJson(res, 400, { error: `seconds must be an integer from 1 to 300, found '${raw}'` });
      return;
    }
    if (cpuBusy) {
      sendJson(res, 409, { error: 'a CPU profile is already being taken; try again when it ends' });
      return;
    }
    cpuBusy = true;
    try {
      const startedAtMs = now();
      await session.post('Profiler.start');
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      const { profile: cpu } = await session.post('Profiler.stop');
      const body = cpuProfileToPprof(cpu, CPU_SAMPLING_MICROS, startedAtMs);
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-disposition': 'attachment; filename="profile"',
      });
      res.end(body);
    } finally {
      cpuBusy = false;
    }
  };
}

/** `/heap`: the sampled live heap, sampling since the server started. */
function heapRoute(session: Session, now: () => number): RouteHandler {
  return async (_req, res) => {
    const { profile: sampled } = await session.post('HeapProfiler.getSamplingProfile');
    const body = heapProfileToPprof(sampled, HEAP_SAMPLING_BYTES, now());
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-disposition': 'attachment; filename="heap"',
    });
    res.end(body);
  };
}

/** `/heapsnapshot`: a full V8 heap snapshot, streamed as it is written. */
function heapSnapshotRoute(session: Session): RouteHandler {
  return async (_req, res) => {
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-disposition': 'attachment; filename="orch-agent.heapsnapshot"',
    });
    const onChunk = (message: { params: { chunk: string } }) => res.write(message.params.chunk);
    session.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
    try {
      await session.post('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    } finally {
      session.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
    }
    res.end();
  };
}

export async function startPprofServer(
  pprof: AgentConfig['pprof'],
  onError: (error: Error) => void,
  now: () => number,
  host = '127.0.0.1',
): Promise<SideServer> {
  const session = new Session();
  session.connect();
  // Heap sampling runs from the start, so /heap shows where live memory was allocated.
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', { samplingInterval: HEAP_SAMPLING_BYTES });
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: CPU_SAMPLING_MICROS });
  const server = await startSideServer({
    setting: 'pprof.port',
    host,
    port: pprof.port,
    onError,
    routes: {
      '/debug/pprof/': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(INDEX);
      },
      '/debug/pprof/profile': cpuProfileRoute(session, now),
      '/debug/pprof/heap': heapRoute(session, now),
      '/debug/pprof/heapsnapshot': heapSnapshotRoute(session),
    },
  }).catch((error: unknown) => {
    session.disconnect();
    throw error;
  });
  return {
    url: server.url,
    close: async () => {
      await server.close();
      session.disconnect();
    },
  };
}
