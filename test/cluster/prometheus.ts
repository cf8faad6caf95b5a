// A real Prometheus server (built from its Go module in ./prometheus/) for the Prometheus analysis
// provider's tests: it scrapes the targets a test gives it every second and answers PromQL over its
// HTTP API on 127.0.0.1. It runs through the reaper like the cluster's processes, so it cannot outlive
// the test process; its TSDB lives in the test's directory.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { goBinary, testGoCommand } from '../tools/go-binary.ts';
import { locateBinaryCache, resolveBinaries } from './binary-cache.ts';
import { ClusterProcess } from './cluster-process.ts';
import { freePort } from './free-port.ts';

export interface PrometheusServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Resolves once every target has been scraped successfully at least once. */
  scraped(timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

export interface PrometheusSpec {
  dir: string;
  /** `host:port` of each target, scraped at `/metrics` every second. */
  targets: readonly string[];
}

export async function startPrometheus(spec: PrometheusSpec): Promise<PrometheusServer> {
  const { moduleDir, name, tags, pkg } = testGoCommand('prometheus');
  const binary = await goBinary(moduleDir, name, tags, pkg);
  const reaper = (await resolveBinaries(await locateBinaryCache())).path('reaper');
  const dir = join(spec.dir, 'prometheus');
  await mkdir(join(dir, 'logs'), { recursive: true });
  const config = join(dir, 'prometheus.yml');
  await writeFile(
    config,
    JSON.stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      scrape_configs: [{ job_name: 'test', static_configs: [{ targets: spec.targets }] }],
    }),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = await ClusterProcess.start(
    {
      name: 'prometheus',
      binary,
      logFile: join(dir, 'logs', 'prometheus.log'),
      args: [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
    },
    reaper,
  );
  await server.ready(
    'ready',
    async () => ((await fetch(`${url}/-/ready`).catch(() => undefined))?.ok ? true : undefined),
    60_000,
  );
  return {
    url,
    async scraped(timeoutMs) {
      await server.ready(
        'its targets scraped',
        async () => {
          const answer = await fetch(`${url}/api/v1/targets`).catch(() => undefined);
          const body: unknown = await answer?.json().catch(() => undefined);
          const text = JSON.stringify(body ?? {});
          const up = text.match(/"health":"up"/g)?.length ?? 0;
          return up >= spec.targets.length ? true : undefined;
        },
        timeoutMs,
      );
    },
    async stop() {
      await server.stop();
    },
  };
}
