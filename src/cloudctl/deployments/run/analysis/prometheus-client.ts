// One Prometheus query provider of cloudctl's config, asked range queries over its HTTP API
// (`POST /api/v1/query_range`). Every way a query can go wrong comes back as a reason in words, never
// as a throw, since a failed query is a failed judgment, not a broken run: no answer in time, a non-2xx
// status (with Prometheus's own errorType and error when it sends them), a body that is not the API's.
// The bearer token goes only into the Authorization header; messages name the provider, never its
// URL (which may carry credentials) or the token. Certificates are verified, against `caFile` when set.
import { readFile } from 'node:fs/promises';
import { Agent, fetch } from 'undici';
import { z } from 'zod';
import { readBounded } from '../../../../lib/bounded-body.ts';
import type { PrometheusProvider } from '../../../config/index.ts';

/** A bigger answer is a query that selects far more series than a verdict needs. */
export const PROMETHEUS_ANSWER_LIMIT_BYTES = 4 * 1024 * 1024;

/** How much of a refusal that is not the API's JSON a verdict quotes. */
const ERROR_TEXT_SHOWN = 200;

export interface RangeQuery {
  query: string;
  start: Date;
  end: Date;
  stepSeconds: number;
}

export interface Series {
  /** `{__name__="…", pod="…"}`, as Prometheus labels it. */
  metric: Record<string, string>;
  /** The samples' values in time order; NaN and infinities are kept for the judgment to drop. */
  values: number[];
}

export type PrometheusAnswer = { ok: true; series: Series[] } | { ok: false; reason: string };

export interface PrometheusClient {
  readonly name: string;
  queryRange(query: RangeQuery, signal: AbortSignal): Promise<PrometheusAnswer>;
}

const sampleSchema = z.tuple([z.number(), z.string()]);
const answerSchema = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('success'),
    data: z.discriminatedUnion('resultType', [
      z.object({
        resultType: z.literal('matrix'),
        result: z.array(
          z.object({ metric: z.record(z.string(), z.string()), values: z.array(sampleSchema) }),
        ),
      }),
      z.object({ resultType: z.enum(['vector', 'scalar', 'string']) }),
    ]),
  }),
  z.object({ status: z.literal('error'), errorType: z.string().optional(), error: z.string().optional() }),
]);

function failureOf(error: unknown, timeoutSeconds: number): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${timeoutSeconds} s`;
  if (error instanceof Error && error.name === 'AbortError') return 'stopped: cloudctl is stopping';
  // undici's 'fetch failed' keeps the socket's or TLS's own error as its cause.
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return `no connection: ${cause instanceof Error ? cause.message : String(cause)}`;
}

/** What the answer says, as series or as the reason there are none to judge. */
function readAnswer(status: number, text: string): PrometheusAnswer {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // A proxy's or load balancer's refusal is text: its first words say more than its absence of JSON.
    const said = text.trim().slice(0, ERROR_TEXT_SHOWN);
    if (status < 200 || status > 299)
      return { ok: false, reason: `answered ${status}${said === '' ? '' : `: ${said}`}` };
    return { ok: false, reason: `answered ${status} with a body that is not JSON` };
  }
  const parsed = answerSchema.safeParse(json);
  if (!parsed.success)
    return { ok: false, reason: `answered ${status} with a body that is not Prometheus's query API` };
  const answer = parsed.data;
  if (answer.status === 'error')
    return {
      ok: false,
      reason: `answered ${status} ${answer.errorType ?? 'error'}: ${answer.error ?? ''}`.trim(),
    };
  if (status < 200 || status > 299) return { ok: false, reason: `answered ${status}` };
  if (answer.data.resultType !== 'matrix')
    return { ok: false, reason: `answered a ${answer.data.resultType} to a range query` };
  return {
    ok: true,
    series: answer.data.result.map((s) => ({ metric: s.metric, values: s.values.map(([, v]) => Number(v)) })),
  };
}

export function prometheusClient(provider: PrometheusProvider): PrometheusClient {
  const url = `${provider.baseUrl.replace(/\/+$/, '')}/api/v1/query_range`;
  // The CA is read at the first query, not at start: a provider no file uses costs nothing.
  let dispatcher: Promise<Agent> | undefined;
  const agent = () => {
    dispatcher ??= (async () =>
      new Agent({
        connect: provider.caFile === undefined ? {} : { ca: await readFile(provider.caFile, 'utf8') },
      }))();
    return dispatcher;
  };
  return {
    name: provider.name,
    async queryRange(query, signal) {
      const seconds = provider.timeoutSeconds;
      const body = new URLSearchParams({
        query: query.query,
        start: String(query.start.getTime() / 1000),
        end: String(query.end.getTime() / 1000),
        step: `${query.stepSeconds}s`,
        timeout: `${seconds}s`,
      });
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
      if (provider.bearerToken !== undefined) headers.authorization = `Bearer ${provider.bearerToken}`;
      try {
        const response = await fetch(url, {
          method: 'POST',
          body: body.toString(),
          headers,
          redirect: 'manual',
          dispatcher: await agent(),
          signal: AbortSignal.any([signal, AbortSignal.timeout(seconds * 1000)]),
        });
        const { bytes, truncated } = await readBounded(response.body, PROMETHEUS_ANSWER_LIMIT_BYTES);
        if (truncated)
          return { ok: false, reason: `answered more than ${PROMETHEUS_ANSWER_LIMIT_BYTES} bytes` };
        return readAnswer(response.status, bytes.toString('utf8'));
      } catch (error) {
        return { ok: false, reason: failureOf(error, seconds) };
      }
    },
  };
}
