// cloudctl as its own process, as users run it: `cloudctl serve --config FILE` (the bin, a config
// file, the embedded database in a data directory). A benchmark that reports cloudctl's memory and
// CPU reads them from /proc like the agent's; in the benchmark's process they would include the
// load generator's. The benchmark then reaches cloudctl only as a client does: the HTTP API (tasks,
// /cache/introspection) and /metrics.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { z } from 'zod';
import { hashToken } from '../../src/cloudctl/index.ts';
import { freePort } from '../../test/cluster/free-port.ts';
import { startCloudctl } from '../../test/support/processes.ts';
import { AGENT_ID, type CloudctlEndpoint } from './bench-system.ts';

export interface CloudctlProcess extends CloudctlEndpoint {
  readonly pid: number;
  /** The HTTP API's origin, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  /** The benchmark user's bearer token, for clients the benchmark runs itself (GET /watch). */
  readonly userToken: string;
  /** The answer to a request as the benchmark's user, parsed by `schema`; throws on any status but 200. */
  request<S extends z.ZodType>(
    method: 'GET' | 'POST',
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<z.infer<S>>;
  /**
   * The sum of a metric's samples over all its labels, from /metrics (0 while it has none); throws
   * when cloudctl does not export it, so a renamed metric fails the run instead of stalling it.
   */
  metricSum(name: string): Promise<number>;
  stop(): Promise<void>;
}

export async function startCloudctlProcess(dir: string): Promise<CloudctlProcess> {
  const token = randomBytes(24).toString('hex');
  const userToken = randomBytes(24).toString('hex');
  const [grpcPort, httpPort] = [await freePort(), await freePort()];
  const config = [
    `grpc:\n  host: 127.0.0.1\n  port: ${grpcPort}`,
    `http:\n  host: 127.0.0.1\n  port: ${httpPort}`,
    // A new data directory per run: every run starts with an empty cache.
    `database:\n  dataDir: ${join(dir, `cloudctl-data-${randomBytes(4).toString('hex')}`)}`,
    'logging:\n  level: warn',
    `agents:\n  - id: ${AGENT_ID}\n    tokenHash: ${hashToken(token)}`,
    // No roles: the benchmark's accounts set no permissions, so any user may read and change them.
    `users:\n  - name: bench\n    tokenHash: ${hashToken(userToken)}`,
    '',
  ].join('\n');
  const running = await startCloudctl(dir, 'cloudctl.yaml', config, httpPort);
  const { pid } = running.child;
  if (pid === undefined) throw new Error('cloudctl did not start');
  const url = `http://127.0.0.1:${httpPort}`;
  return {
    pid,
    url,
    userToken,
    grpcPort,
    token,
    async request(method, path, schema, body) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${userToken}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (response.status !== 200)
        throw new Error(`${method} ${path}: HTTP ${response.status}: ${text.slice(0, 300)}`);
      return schema.parse(JSON.parse(text));
    },
    async metricSum(name) {
      const text = await (await fetch(`${url}/metrics`)).text();
      if (!text.includes(`# TYPE ${name} `)) throw new Error(`${url}/metrics has no ${name}`);
      let sum = 0;
      for (const match of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm')))
        sum += Number(match[1]);
      return sum;
    },
    async stop() {
      await running.stop();
    },
  };
}
