// What every route of cloudctl's HTTP API shares: probes and metrics without a token, bearer
// authentication with WWW-Authenticate, one error body for every 4xx, 405 with Allow, one log line
// per request that never holds a token, opt-in anonymous access, TLS, and a shutdown that lets a
// request in flight finish. Real sockets throughout.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCa, issueLoopbackServer } from '../../support/pki.ts';
import { type LogLine, startTestControlPlane, type TestControlPlane, USERS } from '../harness.ts';
import { apiClient } from '../http-client.ts';

let cp: TestControlPlane;

beforeAll(async () => {
  cp = await startTestControlPlane();
});

afterAll(async () => {
  await cp?.close();
});

const requestLines = (logs: LogLine[]) => logs.filter((l) => l.msg === 'request');

describe('probes and metrics', () => {
  it('answers /health and /ready without a token', async () => {
    const client = apiClient(cp.url);
    expect(await client.get('/health')).toMatchObject({ status: 200, body: { status: 'UP' } });
    expect(await client.get('/ready')).toMatchObject({
      status: 200,
      body: { status: 'UP', checks: { database: 'ok', lifecycle: 'ok' } },
    });
  });

  it('counts requests by route pattern and status in cloudctl_http_requests_total', async () => {
    const client = apiClient(cp.url, USERS.dev.token);
    await client.get('/task/abc');
    await client.get('/task/def');
    const metrics = await apiClient(cp.url).get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(metrics.body).toContain(
      'cloudctl_http_requests_total{method="GET",route="/task/:id",status="404"} 2',
    );
    expect(metrics.body).toMatch(/^cloudctl_agent_sessions 0$/m);
  });
});

describe('authentication', () => {
  it.each([
    [
      'no Authorization header',
      undefined,
      'this request needs a bearer token (Authorization: Bearer <token>)',
    ],
    ['a Basic header', 'Basic dXNlcjpwYXNz', 'the Authorization header is not a bearer token'],
    ['an unknown token', 'Bearer unknown-token-7e57', 'the bearer token is not known'],
  ])('answers 401 with WWW-Authenticate for %s', async (_case, header, message) => {
    const response = await fetch(
      `${cp.url}/instanceTypes`,
      header === undefined ? {} : { headers: { authorization: header } },
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="cloudctl"');
    const body = await response.json();
    expect(body).toMatchObject({
      status: 401,
      error: 'Unauthorized',
      code: 'UNAUTHENTICATED',
      message,
      path: '/instanceTypes',
    });
    expect(JSON.stringify(body)).not.toContain('7e57');
  });

  it('lets a configured user in and logs who it was', async () => {
    const answer = await apiClient(cp.url, USERS.dev.token).get('/instanceTypes');
    expect(answer).toMatchObject({ status: 200, body: [] });
    const line = requestLines(cp.logs).findLast((l) => l.route === '/instanceTypes' && l.status === 200);
    expect(line).toMatchObject({ method: 'GET', route: '/instanceTypes', status: 200, user: 'dana' });
    expect(typeof line?.durationMs).toBe('number');
  });

  it('never writes a token into the log', async () => {
    await apiClient(cp.url, USERS.admin.token).get('/instanceTypes');
    await apiClient(cp.url, 'leaked-token-9f9f').get('/instanceTypes');
    const text = JSON.stringify(cp.logs);
    expect(text).not.toContain(USERS.admin.token);
    expect(text).not.toContain('leaked-token-9f9f');
  });
});

describe('errors', () => {
  it('answers an unknown route with 404 in the error body, path without the query', async () => {
    const answer = await apiClient(cp.url, USERS.dev.token).get('/no/such/route?x=1');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      status: 404,
      error: 'Not Found',
      code: 'NOT_FOUND',
      message: 'no route GET /no/such/route',
      path: '/no/such/route',
    });
  });

  it('judges a long path parameter by the route (404 for an unknown account), not 414', async () => {
    const name = 'ä'.repeat(600);
    const answer = await apiClient(cp.url, USERS.dev.token).get(`/credentials/${encodeURIComponent(name)}`);
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('answers a method the path does not take with 405 and Allow', async () => {
    const answer = await apiClient(cp.url, USERS.dev.token).delete('/instanceTypes');
    expect(answer.status).toBe(405);
    // fastify serves HEAD wherever it serves GET.
    expect(answer.headers.get('allow')).toBe('GET, HEAD');
    expect(answer.body).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED' });
  });

  it('answers malformed JSON with 400 and a body that is not text/plain with 415', async () => {
    const headers = { authorization: `Bearer ${USERS.ops.token}` };
    const malformed = await fetch(`${cp.url}/ops`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '[{"scaleManifest": ',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ status: 400, code: 'REQUEST_INVALID', path: '/ops' });
    const text = await fetch(`${cp.url}/ops`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/plain' },
      body: 'hi',
    });
    expect(text.status).toBe(415);
    expect(await text.json()).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('answers a missing required query parameter with 400 naming it', async () => {
    const client = apiClient(cp.url, USERS.dev.token);
    const noRegion = await client.get('/elasticIps/acc');
    expect(noRegion.status).toBe(400);
    expect(noRegion.body.message).toMatch(/^query parameter region: /);
    const noFilters = await client.get('/reports/reservation');
    expect(noFilters.status).toBe(400);
    expect(noFilters.body.message).toMatch(/^query parameter filters: /);
    expect(await client.get('/reports/reservation?filters=a&filters=b')).toMatchObject({
      status: 200,
      body: [],
    });
    expect(await client.get('/elasticIps/acc?region=eu')).toMatchObject({ status: 200, body: [] });
  });
});

describe('anonymous access', () => {
  it('is refused unless the config allows it, and then acts as the user anonymous', async () => {
    expect((await apiClient(cp.url).get('/instanceTypes')).status).toBe(401);
    const open = await startTestControlPlane({ auth: { anonymous: { enabled: true, roles: [] } } });
    try {
      expect(await apiClient(open.url).get('/instanceTypes')).toMatchObject({ status: 200, body: [] });
      expect(requestLines(open.logs).findLast((l) => l.route === '/instanceTypes')?.user).toBe('anonymous');
    } finally {
      await open.close();
    }
  });
});

describe('TLS', () => {
  it('serves the API over HTTPS with the configured certificate', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cloudctl-http-tls-'));
    try {
      const ca = await createCa();
      const server = await issueLoopbackServer(ca);
      await writeFile(join(dir, 'server.crt'), server.certPem);
      await writeFile(join(dir, 'server.key'), server.keyPem);
      const secure = await startTestControlPlane({
        http: { tls: { certFile: join(dir, 'server.crt'), keyFile: join(dir, 'server.key') } },
      });
      try {
        const base = secure.url.replace('http:', 'https:');
        const dispatcher = new Agent({ connect: { ca: ca.certPem } });
        const answer = await undiciFetch(`${base}/health`, { dispatcher });
        expect(answer.status).toBe(200);
        // Unverified: a client that does not trust the CA is refused by the handshake.
        await expect(fetch(`${base}/health`)).rejects.toThrow();
        await dispatcher.close();
      } finally {
        await secure.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('shutdown', () => {
  it('lets a request in flight finish before the server closes', async () => {
    const stopping = await startTestControlPlane();
    const port = Number(new URL(stopping.url).port);
    const body = JSON.stringify({});
    const answered = new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/ops/scaleManifest',
          headers: {
            'content-type': 'application/json',
            'content-length': body.length,
            authorization: `Bearer ${USERS.ops.token}`,
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      // Half the body now: the request is in flight when the shutdown starts.
      req.write(body.slice(0, 1));
      setTimeout(() => req.end(body.slice(1)), 300);
    });
    await new Promise((r) => setTimeout(r, 100));
    const closed = stopping.close();
    // The request got its answer (a 400: the payload is empty), not a reset connection.
    expect(await answered).toBe(400);
    // And the server closed right after it, not at the shutdown deadline (10 s).
    const answeredAt = Date.now();
    await closed;
    expect(Date.now() - answeredAt).toBeLessThan(3000);
  });
});

describe('an oversized request body', () => {
  /**
   * Sends the request as Python's http.client and many libraries do: headers and the whole body
   * first, and only then reads the answer. Resolves with what came back, or the socket's error.
   */
  function sendWholeThenRead(bytes: number, token: string): Promise<string> {
    return new Promise((resolve) => {
      const socket = connect(new URL(cp.url).port === '' ? 80 : Number(new URL(cp.url).port), '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk) => {
        answer += chunk.toString();
      });
      socket.on('error', (error) => resolve(`error: ${error.message}`));
      socket.on('close', () => resolve(answer));
      socket.on('connect', () => {
        socket.write(
          [
            'POST /ops/deployManifest HTTP/1.1',
            'Host: 127.0.0.1',
            `Authorization: Bearer ${token}`,
            'Content-Type: application/json',
            `Content-Length: ${bytes}`,
            '',
            '',
          ].join('\r\n'),
        );
        // The whole body, however long the server takes to read it; the answer is read after.
        socket.write(Buffer.alloc(bytes, 0x20), () => socket.end());
      });
    });
  }

  it('gets its 413 even when the client sends the whole body before reading', async () => {
    // Larger than what loopback socket buffers hold, so the server must read it for the client to finish.
    const answer = await sendWholeThenRead(32 << 20, USERS.admin.token);
    expect(answer).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).toContain('"code":"FST_ERR_CTP_BODY_TOO_LARGE"');
  });

  it('still answers a body within the limit as its route does', async () => {
    const answer = await sendWholeThenRead(1000, USERS.admin.token);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
  });
});
