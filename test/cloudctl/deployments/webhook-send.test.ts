// Webhook requests as the job receives them, over a real HTTP server on loopback: sent as rendered
// with secret headers resolved at the last moment; retried only when no answer came or the answer
// was 5xx or 429, Backoff apart, retryCount times at most; refused at once on other statuses; and
// never a secret value in a log line or an error message. The remote-agent transport is driven by an
// `execute` that sends the request itself, as the agent's httpRequest operation would.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DeploymentError,
  directWebhookTransport,
  type ExecuteOnAgent,
  type HttpRequestPayload,
  type RenderedWebhookRequest,
  remoteAgentWebhookTransport,
  sendWebhookRequest,
  type WebhookSendDeps,
  type WebhookTransport,
  webhookSecrets,
} from '../../../src/cloudctl/deployments/index.ts';
import type { OperationErrorCode } from '../../../src/contract/index.ts';
import type { BackoffClock } from '../../../src/lib/backoff.ts';
import { builtinEngines, secretsSchema } from '../../../src/secrets/index.ts';

const SECRET = 'Bearer s3cr3t-token-4217';
const FILE_SECRET = 'file-kept-signature-9931';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A job endpoint that answers each request with the next scripted status (the last one repeats). */
class JobServer {
  readonly received: Received[] = [];
  statuses: number[] = [200];
  responseBody = '{"accepted":true}';
  /** When set, requests are never answered. */
  silent = false;
  readonly #server: Server;

  constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.received.push({
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        if (this.silent) return;
        const status = this.statuses[Math.min(this.received.length - 1, this.statuses.length - 1)] ?? 200;
        res.writeHead(status, status === 302 ? { location: `${this.url}/elsewhere` } : {});
        res.end(this.responseBody);
      });
    });
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
  }

  reset(): void {
    this.received.length = 0;
    this.statuses = [200];
    this.responseBody = '{"accepted":true}';
    this.silent = false;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const job = new JobServer();
let workingDir: string;

/** cloudctl's engines on their default settings, with `env` as its environment. */
const engines = (env: NodeJS.ProcessEnv) =>
  builtinEngines({ store: secretsSchema().parse({}).store, configDir: workingDir, env });
beforeAll(async () => {
  await job.start();
  workingDir = mkdtempSync(join(tmpdir(), 'webhook-send-'));
  writeFileSync(join(workingDir, 'signature.txt'), `${FILE_SECRET}\n`);
});
afterEach(() => job.reset());
afterAll(async () => {
  await job.stop();
  rmSync(workingDir, { recursive: true, force: true });
});

function request(overrides: Partial<RenderedWebhookRequest> = {}): RenderedWebhookRequest {
  return {
    webhook: 'run-tests',
    method: 'POST',
    url: `${job.url}/jobs/start?suite=smoke`,
    headers: [
      { key: 'Content-Type', value: 'application/json' },
      { key: 'X-Deployment', value: 'dep-123' },
      { key: 'Authorization', secretReference: 'encrypted:env!n:JOB_TOKEN' },
      { key: 'X-Signature', secretReference: 'encrypted:file!f:signature.txt' },
    ],
    body: '{"deployment":"dep-123","callback":"https://cloudctl.example/callback/abc"}',
    ...overrides,
  };
}

/** The sender's deps, with a log kept in memory and Backoff's waits recorded and skipped. */
function harness(transport: WebhookTransport = directWebhookTransport()) {
  const lines: string[] = [];
  const delays: number[] = [];
  const clock: BackoffClock = {
    schedule(callback, ms) {
      delays.push(ms);
      const timer = setImmediate(callback);
      return () => clearImmediate(timer);
    },
  };
  const deps: WebhookSendDeps = {
    transport,
    secrets: webhookSecrets(engines({ JOB_TOKEN: SECRET })),
    logger: pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }),
    backoff: { clock, jitter: 0 },
  };
  const attemptLines = () =>
    lines.map((line) => JSON.parse(line) as { attempt?: number }).filter((l) => l.attempt !== undefined);
  return { deps, lines, delays, attemptLines };
}

async function failure(promise: Promise<unknown>): Promise<DeploymentError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof DeploymentError))
    throw new Error(`expected a DeploymentError, got ${String(error)}`);
  return error;
}

describe('sendWebhookRequest, direct', () => {
  it('sends method, URL, body and headers as rendered, with secret headers resolved, and succeeds on 2xx', async () => {
    const { deps, lines, attemptLines } = harness();
    const response = await sendWebhookRequest(request(), { retryCount: 2 }, deps);

    expect(response).toEqual({ status: 200, body: '{"accepted":true}', attempts: 1 });
    expect(job.received).toHaveLength(1);
    const [got] = job.received;
    expect(got?.method).toBe('POST');
    expect(got?.url).toBe('/jobs/start?suite=smoke');
    expect(got?.body).toBe('{"deployment":"dep-123","callback":"https://cloudctl.example/callback/abc"}');
    expect(got?.headers['content-type']).toBe('application/json');
    expect(got?.headers['x-deployment']).toBe('dep-123');
    expect(got?.headers.authorization).toBe(SECRET);
    expect(got?.headers['x-signature']).toBe(FILE_SECRET);
    expect(attemptLines()).toHaveLength(1);
    const log = lines.join('\n');
    expect(log).toContain(`webhook 'run-tests': POST ${job.url}/jobs/start?suite=smoke`);
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain(FILE_SECRET);
  });

  it('retries a 503 and succeeds on the second attempt after the first backoff delay', async () => {
    job.statuses = [503, 200];
    const { deps, delays, attemptLines } = harness();
    const response = await sendWebhookRequest(request(), { retryCount: 2 }, deps);

    expect(response.attempts).toBe(2);
    expect(response.status).toBe(200);
    expect(job.received).toHaveLength(2);
    expect(delays).toEqual([1000]);
    expect(attemptLines()).toHaveLength(2);
    // The retry carries the secret as the first attempt did.
    expect(job.received[1]?.headers.authorization).toBe(SECRET);
  });

  it('retries a 429', async () => {
    job.statuses = [429, 429, 202];
    const { deps } = harness();
    const response = await sendWebhookRequest(request(), { retryCount: 3 }, deps);
    expect(response).toMatchObject({ status: 202, attempts: 3 });
    expect(job.received).toHaveLength(3);
  });

  it('fails at once on a 400, with WEBHOOK_REJECTED and no retry', async () => {
    job.statuses = [400, 200];
    job.responseBody = `you sent ${SECRET}`;
    const { deps, lines } = harness();
    const error = await failure(sendWebhookRequest(request(), { retryCount: 3 }, deps));

    expect(error.code).toBe('WEBHOOK_REJECTED');
    expect(error.message).toContain(`webhook 'run-tests': POST ${job.url}/jobs/start?suite=smoke`);
    expect(error.message).toContain('answered 400');
    expect(job.received).toHaveLength(1);
    expect(error.message).not.toContain(SECRET);
    expect(lines.join('\n')).not.toContain(SECRET);
  });

  it('does not follow a redirect: a 302 is rejected after one request', async () => {
    job.statuses = [302];
    const { deps } = harness();
    const error = await failure(sendWebhookRequest(request(), { retryCount: 2 }, deps));
    expect(error.code).toBe('WEBHOOK_REJECTED');
    expect(error.message).toContain('answered 302');
    expect(job.received.map((r) => r.url)).toEqual(['/jobs/start?suite=smoke']);
  });

  it('declares a closed port unreachable after retryCount retries: 3 attempts, delays 1 s then 2 s', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/jobs/start`;
    const { deps, lines, delays, attemptLines } = harness();
    const error = await failure(sendWebhookRequest(request({ url }), { retryCount: 2 }, deps));

    expect(error.code).toBe('WEBHOOK_UNREACHABLE');
    expect(error.message).toContain(`webhook 'run-tests': POST ${url}`);
    expect(error.message).toContain('no answer after 3 attempts');
    expect(error.message).toContain('ECONNREFUSED');
    expect(attemptLines().map((l) => l.attempt)).toEqual([1, 2, 3]);
    expect(delays).toEqual([1000, 2000]);
    expect(error.message).not.toContain(SECRET);
    expect(lines.join('\n')).not.toContain(SECRET);
  });

  it('makes one attempt only with retryCount 0', async () => {
    job.statuses = [503, 200];
    const { deps, delays } = harness();
    const error = await failure(sendWebhookRequest(request(), { retryCount: 0 }, deps));
    expect(error.code).toBe('WEBHOOK_UNREACHABLE');
    expect(error.message).toContain('no answer after 1 attempt: answered 503');
    expect(job.received).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('gives up an attempt at the transport timeout and counts it as no answer', async () => {
    job.silent = true;
    const { deps } = harness(directWebhookTransport({ timeoutMs: 200 }));
    const started = Date.now();
    const error = await failure(sendWebhookRequest(request(), { retryCount: 1 }, deps));
    expect(error.code).toBe('WEBHOOK_UNREACHABLE');
    expect(error.message).toContain('no answer within 0.2 s');
    expect(job.received).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('keeps at most 64 KiB of the response body', async () => {
    job.responseBody = 'x'.repeat(200 * 1024);
    const { deps } = harness();
    const response = await sendWebhookRequest(request(), { retryCount: 0 }, deps);
    expect(response.body.length).toBe(64 * 1024);
  });
});

describe('sendWebhookRequest, secrets', () => {
  it('sends nothing when a secret cannot be resolved, and names the reference, not a value', async () => {
    const { deps } = harness();
    const headers = [
      { key: 'Authorization', secretReference: 'encrypted:env!n:JOB_TOKEN' },
      { key: 'X-Other', secretReference: 'encrypted:env!n:MISSING_VAR' },
    ];
    const error = await failure(sendWebhookRequest(request({ headers }), { retryCount: 2 }, deps));
    expect(error.code).toBe('WEBHOOK_SECRET_UNRESOLVED');
    expect(error.message).toContain("header 'X-Other' (encrypted:env!n:MISSING_VAR)");
    expect(error.message).toContain('SECRET_NOT_FOUND: environment variable MISSING_VAR is not set');
    expect(job.received).toHaveLength(0);
  });

  it("says the vault engine is off until secrets.store.vault in cloudctl's config enables it", async () => {
    const { deps } = harness();
    const headers = [{ key: 'Authorization', secretReference: 'encrypted:vault!e:secret!p:ci!k:token' }];
    const error = await failure(sendWebhookRequest(request({ headers }), { retryCount: 0 }, deps));
    expect(error.code).toBe('WEBHOOK_SECRET_UNRESOLVED');
    expect(error.message).toContain('the vault engine is off: set secrets.store.vault.enabled: true');
    expect(job.received).toHaveLength(0);
  });

  it('refuses a secret whose value holds a line break, without quoting it', async () => {
    const { deps } = harness();
    deps.secrets = webhookSecrets(engines({ JOB_TOKEN: `${SECRET}\r\nX-Injected: 1` }));
    const error = await failure(sendWebhookRequest(request(), { retryCount: 0 }, deps));
    expect(error.code).toBe('WEBHOOK_HEADER_INVALID');
    expect(error.message).toContain("header 'Authorization'");
    expect(error.message).not.toContain(SECRET);
    expect(job.received).toHaveLength(0);
  });
});

describe('sendWebhookRequest, through an agent', () => {
  /**
   * Stands in for the agent's httpRequest operation: resolves the secret headers with its own engines
   * (here the same env and file engines, on the agent's side), sends for real, reports as the agent does.
   */
  function agent() {
    const payloads: HttpRequestPayload[] = [];
    const agentSecrets = webhookSecrets(engines({ JOB_TOKEN: SECRET }));
    const execute: ExecuteOnAgent = async (type, payload) => {
      expect(type).toBe('httpRequest');
      payloads.push(structuredClone(payload));
      const id = `op-${payloads.length}`;
      const transport = directWebhookTransport({
        timeoutMs: payload.timeoutMs,
        maxResponseBytes: payload.maxResponseBytes,
      });
      const headers = { ...payload.headers };
      for (const [name, reference] of Object.entries(payload.secretHeaders ?? {}))
        headers[name] = await agentSecrets(reference);
      try {
        const answer = await transport.send({ ...payload, headers, secretHeaders: {} });
        return { id, outcome: 'succeeded', result: { ...answer, headers: {}, truncated: false } };
      } catch (error) {
        // The agent's handler reports a fetch that got no answer as UNREACHABLE, naming the host.
        const reason = error instanceof Error ? error.message : String(error);
        const host = new URL(payload.url).host;
        return {
          id,
          outcome: 'failed',
          error: { code: 'UNREACHABLE', message: `${host}: fetch failed: ${reason}` },
        };
      }
    };
    return { payloads, execute };
  }

  /** cloudctl's side of a remote send resolves nothing: a resolver that fails the test if asked. */
  function remoteHarness(execute: ExecuteOnAgent) {
    const built = harness(remoteAgentWebhookTransport(execute));
    built.deps.secrets = async (reference) => {
      throw new Error(`cloudctl resolved ${reference}, which only the agent may do`);
    };
    return built;
  }

  it('hands the agent secret references, never values, and retries its 503', async () => {
    job.statuses = [503, 200];
    const { payloads, execute } = agent();
    const { deps, lines } = remoteHarness(execute);
    const response = await sendWebhookRequest(request(), { retryCount: 1 }, deps);

    expect(response).toEqual({ status: 200, body: '{"accepted":true}', attempts: 2 });
    expect(job.received).toHaveLength(2);
    expect(job.received[0]?.headers.authorization).toBe(SECRET);
    expect(job.received[0]?.headers['x-signature']).toBe(FILE_SECRET);
    expect(job.received[0]?.body).toBe(request().body);
    expect(payloads[0]).toMatchObject({ method: 'POST', timeoutMs: 30_000, maxResponseBytes: 64 * 1024 });
    // What cloudctl stores with the operation and logs holds the references only.
    expect(payloads[0]?.secretHeaders).toEqual({
      Authorization: 'encrypted:env!n:JOB_TOKEN',
      'X-Signature': 'encrypted:file!f:signature.txt',
    });
    expect(JSON.stringify(payloads)).not.toContain(SECRET);
    expect(JSON.stringify(payloads)).not.toContain(FILE_SECRET);
    expect(lines.join('\n')).not.toContain(SECRET);
  });

  it("counts the agent's failed fetch as no answer and retries it", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/jobs/start`;
    const { payloads, execute } = agent();
    const { deps } = remoteHarness(execute);
    const error = await failure(sendWebhookRequest(request({ url }), { retryCount: 1 }, deps));
    expect(error.code).toBe('WEBHOOK_UNREACHABLE');
    expect(error.message).toContain(
      `no answer after 2 attempts: the agent could not send it: UNREACHABLE: ${new URL(url).host}: fetch failed`,
    );
    expect(error.message).toContain('ECONNREFUSED');
    expect(payloads).toHaveLength(2);
  });

  it.each<{ code: OperationErrorCode; attempts: number; webhookCode: string }>([
    { code: 'UNREACHABLE', attempts: 3, webhookCode: 'WEBHOOK_UNREACHABLE' },
    { code: 'SHUTTING_DOWN', attempts: 3, webhookCode: 'WEBHOOK_UNREACHABLE' },
    { code: 'DEADLINE_EXCEEDED', attempts: 3, webhookCode: 'WEBHOOK_UNREACHABLE' },
    { code: 'FAILED', attempts: 1, webhookCode: 'WEBHOOK_SEND_FAILED' },
    { code: 'INVALID_PAYLOAD', attempts: 1, webhookCode: 'WEBHOOK_SEND_FAILED' },
    { code: 'INVALID_RESULT', attempts: 1, webhookCode: 'WEBHOOK_SEND_FAILED' },
  ])(
    'judges a failure coded $code by its code: $attempts attempt(s), $webhookCode',
    async ({ code, attempts, webhookCode }) => {
      let calls = 0;
      // The message alone would suggest no answer came: only the code may decide.
      const message = 'fetch failed: no answer';
      const execute: ExecuteOnAgent = async () => {
        calls++;
        return { id: `op-${calls}`, outcome: 'failed', error: { code, message } };
      };
      const { deps } = remoteHarness(execute);
      const error = await failure(sendWebhookRequest(request(), { retryCount: 2 }, deps));
      expect(error.code).toBe(webhookCode);
      expect(error.message).toContain(`the agent could not send it: ${code}: ${message}`);
      expect(calls).toBe(attempts);
      expect(job.received).toHaveLength(0);
    },
  );

  it('retries when no agent could be asked', async () => {
    let calls = 0;
    const execute: ExecuteOnAgent = async () => {
      calls++;
      throw new Error('AGENT_NOT_CONNECTED: no connected agent serves account prod');
    };
    const { deps } = remoteHarness(execute);
    const error = await failure(sendWebhookRequest(request(), { retryCount: 2 }, deps));
    expect(error.code).toBe('WEBHOOK_UNREACHABLE');
    expect(error.message).toContain('no connected agent serves account prod');
    expect(calls).toBe(3);
  });

  it('fails at once when the agent cannot resolve a secret header', async () => {
    let calls = 0;
    const execute: ExecuteOnAgent = async (_type, payload) => {
      calls++;
      return {
        id: `op-${calls}`,
        outcome: 'failed',
        error: {
          code: 'SECRET_UNRESOLVED',
          message: `header Authorization (${payload.secretHeaders?.Authorization}): SECRET_NOT_FOUND`,
          path: 'secretHeaders.Authorization',
        },
      };
    };
    const { deps } = remoteHarness(execute);
    const error = await failure(sendWebhookRequest(request(), { retryCount: 2 }, deps));
    expect(error.code).toBe('WEBHOOK_SEND_FAILED');
    expect(calls).toBe(1);
    expect(error.message).toContain(
      'SECRET_UNRESOLVED: header Authorization (encrypted:env!n:JOB_TOKEN): SECRET_NOT_FOUND (at secretHeaders.Authorization)',
    );
  });
});
