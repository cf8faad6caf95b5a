// The Prometheus provider against a real Prometheus (built from its Go module) scraping an exporter
// this test serves: a range query over an interval is reduced to the mean of its samples and held to
// the query's limits, in the words a deployment's log shows; a PromQL error, a query that selects
// nothing and a server that does not answer in time each fail the judgment saying why. The bearer
// token is checked by an authenticating proxy in front of Prometheus, as Prometheus is often served.

import { mkdtemp, rm } from 'node:fs/promises';
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  request as httpRequest,
} from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prometheusClient } from '../../../src/cloudctl/deployments/run/analysis/prometheus-client.ts';
import { judgeAnswer } from '../../../src/cloudctl/deployments/run/analysis/prometheus-judgment.ts';
import { type PrometheusServer, startPrometheus } from '../../cluster/prometheus.ts';
import { type MetricExporter, serveMetrics } from './metric-exporter.ts';

let dir: string;
let exporter: MetricExporter;
let prometheus: PrometheusServer;
let silent: Server;
let guarded: HttpServer;
const TOKEN = 'prom-bearer-2b7e';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'prometheus-provider-'));
  exporter = await serveMetrics(async () => [
    { metric: 'potato_error_ratio', labels: { replicaset: 'potato-good' }, value: 0.01 },
    { metric: 'potato_error_ratio', labels: { replicaset: 'potato-bad' }, value: 0.25 },
  ]);
  prometheus = await startPrometheus({ dir, targets: [exporter.target] });
  await prometheus.scraped(60_000);
  // A few samples in the interval the queries look at.
  await sleep(3_000);
  // Accepts connections and never answers: what a hung server looks like to a client.
  silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  // Lets through only requests with the token, to the real Prometheus.
  guarded = createHttpServer((request, response) => {
    if (request.headers.authorization !== `Bearer ${TOKEN}`) {
      response.writeHead(401, { 'content-type': 'text/plain' }).end('unauthorized');
      return;
    }
    const upstream = httpRequest(
      `${prometheus.url}${request.url}`,
      { method: request.method, headers: { 'content-type': request.headers['content-type'] ?? '' } },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => guarded.listen(0, '127.0.0.1', resolve));
}, 180_000);

afterAll(async () => {
  await prometheus?.stop();
  await exporter?.close();
  silent?.close();
  guarded?.close();
  await rm(dir, { recursive: true, force: true });
});

function portOf(server: Server | HttpServer): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function rangeOf(client: ReturnType<typeof prometheusClient>, query: string) {
  const end = new Date();
  return client.queryRange(
    { query, start: new Date(end.getTime() - 3_000), end, stepSeconds: 1 },
    new AbortController().signal,
  );
}

async function verdict(
  query: string,
  limits: { upperLimit?: number; lowerLimit?: number },
  baseUrl?: string,
) {
  const client = prometheusClient({
    name: 'prom',
    type: 'prometheus',
    baseUrl: baseUrl ?? prometheus.url,
    timeoutSeconds: baseUrl === undefined ? 10 : 1,
  });
  const answer = await rangeOf(client, query);
  return judgeAnswer({ name: 'errorRate', ...limits }, 'prom', query, answer);
}

describe('the Prometheus provider', () => {
  it('passes a value within its limits, the mean of the samples of the interval', async () => {
    expect(await verdict('potato_error_ratio{replicaset="potato-good"}', { upperLimit: 0.05 })).toEqual({
      passed: true,
      value: 0.01,
      words: 'errorRate 0.01 ≤ 0.05',
    });
  });

  it('fails a value over its limit, naming the query, the value, the limit and the samples', async () => {
    const query = 'potato_error_ratio{replicaset="potato-bad"}';
    const result = await verdict(query, { upperLimit: 0.05, lowerLimit: 0 });
    expect(result.passed).toBe(false);
    expect(result.value).toBe(0.25);
    expect(result.words).toMatch(
      /^errorRate 0\.25 > upperLimit 0\.05 \(prom: potato_error_ratio\{replicaset="potato-bad"\}, mean of [1-9]\d* samples?\)$/,
    );
  });

  it('averages every series a query selects', async () => {
    const result = await verdict('potato_error_ratio', { lowerLimit: 0.2 });
    expect(result).toMatchObject({ passed: false, value: 0.13 });
    expect(result.words).toMatch(/^errorRate 0\.13 < lowerLimit 0\.2 \(prom: potato_error_ratio, mean of/);
  });

  it("fails a PromQL error with Prometheus's own words", async () => {
    const result = await verdict('sum(potato_error_ratio', { upperLimit: 1 });
    expect(result.passed).toBe(false);
    expect(result.words).toMatch(
      /^errorRate: no value \(prom: sum\(potato_error_ratio: answered 400 bad_data: .*unclosed left parenthesis/,
    );
  });

  it('fails a query that selects nothing: no data is no evidence', async () => {
    expect(await verdict('potato_error_ratio{replicaset="potato-typo"}', { upperLimit: 1 })).toEqual({
      passed: false,
      words:
        'errorRate: no value (prom: potato_error_ratio{replicaset="potato-typo"}: no series in the interval)',
    });
  });

  it('fails a server that does not answer in time', async () => {
    const result = await verdict('up', { upperLimit: 1 }, `http://127.0.0.1:${portOf(silent)}`);
    expect(result).toEqual({ passed: false, words: 'errorRate: no value (prom: up: no answer within 1 s)' });
  });

  it('sends its bearer token, and fails a refusal saying the status', async () => {
    const base = `http://127.0.0.1:${portOf(guarded)}`;
    const query = 'potato_error_ratio{replicaset="potato-good"}';
    const withToken = prometheusClient({
      name: 'prom',
      type: 'prometheus',
      baseUrl: base,
      timeoutSeconds: 10,
      bearerToken: TOKEN,
    });
    expect(
      judgeAnswer({ name: 'errorRate', upperLimit: 0.05 }, 'prom', query, await rangeOf(withToken, query)),
    ).toMatchObject({ passed: true, value: 0.01 });
    const without = prometheusClient({ name: 'prom', type: 'prometheus', baseUrl: base, timeoutSeconds: 10 });
    expect(await rangeOf(without, query)).toEqual({
      ok: false,
      reason: 'answered 401: unauthorized',
    });
  });
});
