// The shared cluster's fake kubelet: the API server serves `pods/log` for pods on its node with the
// text the test wrote on the pod, shaped by the log options as a kubelet shapes them; and the fake
// kubelet answers only the API server, proven by what it does to every other client. The API server,
// in turn, talks only to a kubelet whose serving certificate its kubelet CA signed.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createCa, issueLoopbackServer } from '../support/pki.ts';
import {
  type ApiClient,
  FAKE_KUBELET_TAINT,
  podLogAnnotations,
  sharedCluster,
  sharedClusterClient,
} from './index.ts';
import { KUBELET_CLIENT_COMMON_NAME } from './kubelet-pki.ts';

let api: ApiClient;
const namespace = `kubelet-${randomBytes(4).toString('hex')}`;
const WEB_LOG = 'listening on :8080\nGET /healthz 200\nGET / 200\n';
const SIDECAR_LOG = 'sidecar ready\n';
const PREVIOUS_LOG = 'panic: out of memory\n';

const Pod = z.object({
  status: z.object({
    phase: z.string().optional(),
    containerStatuses: z
      .array(
        z.object({ name: z.string(), state: z.object({ running: z.object({ startedAt: z.string() }) }) }),
      )
      .optional(),
  }),
});

async function podLog(name: string, query: string) {
  return api.get(`/api/v1/namespaces/${namespace}/pods/${name}/log?${query}`);
}

beforeAll(async () => {
  api = sharedClusterClient();
  const created = await api.request('POST', '/api/v1/namespaces', {
    body: { metadata: { name: namespace } },
  });
  expect(created.status, created.text).toBe(201);
  const pod = await api.request('POST', `/api/v1/namespaces/${namespace}/pods`, {
    body: {
      metadata: {
        name: 'web',
        annotations: podLogAnnotations({ web: WEB_LOG, sidecar: SIDECAR_LOG }, { web: PREVIOUS_LOG }),
      },
      spec: {
        nodeName: sharedCluster().fakeKubelet.nodeName,
        containers: [
          { name: 'web', image: 'nginx:1.27' },
          { name: 'sidecar', image: 'busybox:1.37' },
          { name: 'quiet', image: 'busybox:1.37' },
        ],
      },
    },
  });
  expect(pod.status, pod.text).toBe(201);
  await vi.waitFor(
    async () =>
      expect(Pod.parse((await api.get(`/api/v1/namespaces/${namespace}/pods/web`)).json).status.phase).toBe(
        'Running',
      ),
    { timeout: 30_000, interval: 200 },
  );
});

afterAll(async () => {
  await api.request('DELETE', `/api/v1/namespaces/${namespace}`);
  await api.close();
});

describe("the fake kubelet, through the API server's pods/log", () => {
  it("answers each container's log as the test wrote it, and nothing for a container that printed nothing", async () => {
    expect(await podLog('web', 'container=web')).toMatchObject({ status: 200, text: WEB_LOG });
    expect(await podLog('web', 'container=sidecar')).toMatchObject({ status: 200, text: SIDECAR_LOG });
    expect(await podLog('web', 'container=quiet')).toMatchObject({ status: 200, text: '' });
  });

  it('applies tailLines, then timestamps, then limitBytes; previous reads the earlier instance', async () => {
    expect((await podLog('web', 'container=web&tailLines=2')).text).toBe('GET /healthz 200\nGET / 200\n');
    expect((await podLog('web', 'container=web&tailLines=0')).text).toBe('');
    expect((await podLog('web', 'container=web&limitBytes=9')).text).toBe('listening');
    const pod = Pod.parse((await api.get(`/api/v1/namespaces/${namespace}/pods/web`)).json);
    const started = pod.status.containerStatuses?.find((s) => s.name === 'web')?.state.running.startedAt;
    expect(started).toBeDefined();
    // The API server keeps whole seconds (2026-11-26T22:40:20Z); the kubelet writes nine digits.
    expect(started).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const stamp = `${started?.slice(0, -1)}.000000000Z`;
    expect((await podLog('web', 'container=web&tailLines=1&timestamps=true')).text).toBe(
      `${stamp} GET / 200\n`,
    );
    expect((await podLog('web', 'container=web&previous=true')).text).toBe(PREVIOUS_LOG);
  });

  it("relays the kubelet's refusals: no previous instance, a container not in the pod", async () => {
    const previous = await podLog('web', 'container=sidecar&previous=true');
    expect(previous.status).toBe(400);
    expect(previous.text).toContain('previous terminated container \\"sidecar\\" in pod \\"web\\" not found');
    const unknown = await podLog('web', 'container=nope');
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('container nope is not valid for pod web');
  });
});

/**
 * Sends `GET path` to the fake kubelet on a TLS connection opened with `credential` and reads until it
 * closes: what came back, and the error the client saw, if any.
 */
function exchange(path: string, credential: { cert?: string; key?: string }) {
  const { url, ca } = sharedCluster().fakeKubelet;
  return new Promise<{ received: string; error?: Error }>((resolve) => {
    let received = '';
    let error: Error | undefined;
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(url).port), ca, ...credential }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
    });
    socket.on('error', (e) => {
      error = e;
    });
    socket.on('close', () => resolve({ received, ...(error === undefined ? {} : { error }) }));
  });
}

describe('the fake kubelet answers the API server only', () => {
  const path = `/containerLogs/${namespace}/web/sidecar`;

  it("serves a client holding the API server's kubelet client certificate (the control)", async () => {
    const { clientCertFile, clientKeyFile } = sharedCluster().fakeKubelet;
    const [cert, key] = await Promise.all([
      readFile(clientCertFile, 'utf8'),
      readFile(clientKeyFile, 'utf8'),
    ]);
    const { received, error } = await exchange(path, { cert, key });
    expect(error).toBeUndefined();
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received.endsWith(`\r\n\r\n${SIDECAR_LOG}`)).toBe(true);
  });

  it('refuses a client without a certificate in the TLS handshake (alert 116, certificate required)', async () => {
    const { received, error } = await exchange(path, {});
    expect(received).toBe('');
    expect(error?.message).toContain('alert certificate required');
  });

  it("refuses a certificate bearing the API server's name from another CA: closes without an answer", async () => {
    const stranger = await createCa('not the kubelet CA');
    const issued = await stranger.issue({ commonName: KUBELET_CLIENT_COMMON_NAME, usage: 'client' });
    const { received } = await exchange(path, { cert: issued.certPem, key: issued.keyPem });
    expect(received).toBe('');
  });
});

describe("the API server verifies the kubelet's serving certificate", () => {
  it('reads no log from a node whose kubelet serves a certificate of another CA', async () => {
    const stranger = await issueLoopbackServer(await createCa('not the kubelet CA'), 'impostor-kubelet');
    let requests = 0;
    const impostor = createServer({ key: stranger.keyPem, cert: stranger.certPem }, (_request, response) => {
      requests++;
      response.end('impostor log\n');
    });
    impostor.listen(0, '127.0.0.1');
    await once(impostor, 'listening');
    const node = `impostor-kubelet-${randomBytes(3).toString('hex')}`;
    try {
      // Not a kwok node (kwok would manage its status) and tainted, so no other test's pod lands there.
      const created = await api.request('POST', '/api/v1/nodes', {
        body: {
          metadata: { name: node },
          spec: { unschedulable: true, taints: [FAKE_KUBELET_TAINT] },
          status: {
            addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
            daemonEndpoints: { kubeletEndpoint: { Port: (impostor.address() as AddressInfo).port } },
          },
        },
      });
      expect(created.status, created.text).toBe(201);
      const pod = await api.request('POST', `/api/v1/namespaces/${namespace}/pods`, {
        body: {
          metadata: { name: 'impostor' },
          spec: { nodeName: node, containers: [{ name: 'c', image: 'c:1' }] },
        },
      });
      expect(pod.status, pod.text).toBe(201);
      const log = await podLog('impostor', 'container=c');
      expect(log.status).toBe(500);
      expect(log.text).toContain('x509: certificate signed by unknown authority');
      expect(requests).toBe(0);
    } finally {
      await api.request('DELETE', `/api/v1/namespaces/${namespace}/pods/impostor?gracePeriodSeconds=0`);
      await api.request('DELETE', `/api/v1/nodes/${node}`);
      impostor.close();
    }
  });
});
