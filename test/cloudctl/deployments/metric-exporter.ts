// A small Prometheus exporter the analysis tests serve on 127.0.0.1: `/metrics` in the text
// exposition format, its samples asked of the test at each scrape, so a test decides what a real
// Prometheus will have recorded (an error ratio per ReplicaSet, say).
import { createServer, type Server } from 'node:http';

export interface Sample {
  metric: string;
  labels: Readonly<Record<string, string>>;
  value: number;
}

export interface MetricExporter {
  /** `127.0.0.1:<port>`, as a scrape target. */
  readonly target: string;
  close(): Promise<void>;
}

function line({ metric, labels, value }: Sample): string {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return `${metric}{${pairs.join(',')}} ${value}`;
}

export async function serveMetrics(samples: () => Promise<readonly Sample[]>): Promise<MetricExporter> {
  const server: Server = createServer((request, response) => {
    if (request.url !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    samples().then(
      (list) =>
        response
          .writeHead(200, { 'content-type': 'text/plain; version=0.0.4' })
          .end(`${list.map(line).join('\n')}\n`),
      (error: unknown) => response.writeHead(500).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the exporter is not on TCP');
  return {
    target: `127.0.0.1:${address.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
