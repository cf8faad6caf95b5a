// Preview URLs end to end: `cloudctl serve` and `orch-agent run` as processes on the shared real
// cluster, a deployment file whose canary has an `exposeServices` step. The Service is selector-less,
// its Endpoints point at an HTTP server in this test process on the machine's non-loopback IPv4 (the
// API server's proxy refuses loopback endpoints, and kwok pods run nothing); the address is a pod's
// (its status written as a kubelet would), since the proxy dials only endpoints that are a pod's IP.
// A request to the preview URL reaches that server, path, query and body as sent, without cloudctl's
// credentials, and its answer comes back, also after cloudctl restarts; once the TTL passes the URL
// answers 410, a revoked one 410, an unknown one 404; the record and the deployment's page list the
// URL; a step naming a Service that does not exist fails naming it.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../../cluster/index.ts';
import { TestSystem } from '../../support/processes.ts';
import { type ApiClient, apiClient } from '../http-client.ts';
import { potatoManifests } from './potato-app.ts';

const NS = 'previews-e2e';
const ACCOUNT = 'previews-e2e';
const SERVICE = 'web-preview';
const TOKENS = {
  agent: 'agent-token-previews-51c2',
  ops: 'ops-token-previews-0e7a',
  viewer: 'viewer-previews-77d1',
};
/** Short enough to wait out in the test, long enough for the checks made before it passes. */
const TTL_SECONDS = 40;

let dir: string;
let cluster: ClusterClient;
let system: TestSystem;
let ops: ApiClient;
let viewer: ApiClient;
let server: Server;
/** What the Service (this test's server) received. */
const received: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> =
  [];

function deploymentFile(image: string, services: string[], ttlSeconds: number): string {
  return `version: v1
kind: kubernetes
application: potato
targets:
  staging:
    account: ${ACCOUNT}
    namespace: ${NS}
    strategy: previewed
strategies:
  previewed:
    canary:
      steps:
        - setWeight: {weight: 50}
        - exposeServices:
            services: [${services.join(', ')}]
            ttl: {duration: ${ttlSeconds}, unit: seconds}
manifests:
  - inline: |
${potatoManifests(image).replace(/^(?=.)/gm, '      ')}`;
}

const previewSchema = z.object({
  id: z.string(),
  service: z.string(),
  url: z.string(),
  state: z.string(),
  expiresAt: z.string(),
  revokedBy: z.string().optional(),
});
const viewSchema = z.object({
  id: z.string(),
  status: z.string(),
  targets: z.array(
    z.object({
      steps: z.array(
        z.object({ key: z.string(), kind: z.string(), status: z.string(), message: z.string().optional() }),
      ),
    }),
  ),
  previews: z.array(previewSchema).optional(),
});
type View = z.infer<typeof viewSchema>;

async function finished(id: string): Promise<View> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const answer = await ops.get(`/deployments/${id}`);
    const current = answer.status === 200 ? viewSchema.parse(answer.body) : undefined;
    if (current !== undefined && current.status !== 'RUNNING') return current;
    if (Date.now() > deadline) throw new Error(`deployment ${id} still running:\n${JSON.stringify(current)}`);
    await sleep(250);
  }
}

async function submit(image: string, services: string[], ttlSeconds = TTL_SECONDS): Promise<string> {
  const answer = await ops.post('/deployments', {
    file: deploymentFile(image, services, ttlSeconds),
    fileName: 'potato.yaml',
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  return z.object({ id: z.string() }).parse(answer.body).id;
}

function exposeStep(view: View) {
  const step = view.targets[0]?.steps.find((s) => s.kind === 'exposeServices');
  if (step === undefined) throw new Error(`no exposeServices step in ${JSON.stringify(view.targets[0])}`);
  return step;
}

/** The first IPv4 address of this machine that is not loopback: one the API server's proxy will dial. */
function outsideAddress(): string {
  const found = Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .find((entry) => entry.family === 'IPv4' && !entry.internal);
  if (found === undefined) throw new Error('this machine has no non-loopback IPv4 address');
  return found.address;
}

async function create(path: string, body: unknown, contentType?: string): Promise<void> {
  const answer = await cluster.request('POST', path, {
    body,
    ...(contentType === undefined ? {} : { contentType }),
  });
  expect(answer.status, answer.text).toBe(201);
}

/**
 * The Service the previews reach: selector-less, its Endpoints a pod's address (written into the pod's
 * status once kwok has run it, as a kubelet would) where this test's server listens.
 */
async function serviceOnThisMachine(ip: string, port: number): Promise<void> {
  await create(`/api/v1/namespaces/${NS}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'preview-backend' },
    spec: { containers: [{ name: 'web', image: 'preview-backend:1' }] },
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const pod = await cluster.get(`/api/v1/namespaces/${NS}/pods/preview-backend`);
    if (
      z.object({ status: z.object({ phase: z.string().optional() }) }).parse(pod.json).status.phase ===
      'Running'
    )
      break;
    if (Date.now() > deadline) throw new Error(`pod preview-backend not running: ${pod.text}`);
    await sleep(250);
  }
  const patched = await cluster.request('PATCH', `/api/v1/namespaces/${NS}/pods/preview-backend/status`, {
    contentType: 'application/merge-patch+json',
    body: { status: { podIP: ip, podIPs: [{ ip }] } },
  });
  expect(patched.status, patched.text).toBe(200);
  await create(`/api/v1/namespaces/${NS}/services`, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: SERVICE },
    spec: { ports: [{ name: 'http', port: 80, targetPort: port }] },
  });
  await create(`/api/v1/namespaces/${NS}/endpoints`, {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: SERVICE },
    subsets: [
      {
        addresses: [{ ip, targetRef: { kind: 'Pod', name: 'preview-backend', namespace: NS } }],
        ports: [{ name: 'http', port }],
      },
    ],
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cloudctl-previews-e2e-'));
  cluster = sharedClusterClient();
  const ip = outsideAddress();
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      response.setHeader('x-served-by', 'preview-backend');
      response.setHeader('set-cookie', 'backend=1; Path=/');
      response.setHeader('content-type', 'text/plain; charset=utf-8');
      response.statusCode = request.url?.startsWith('/teapot') ? 418 : 200;
      response.end(`backend saw ${request.method} ${request.url} with ${body.length} bytes`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, ip, resolve));
  await cluster.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  await serviceOnThisMachine(ip, (server.address() as AddressInfo).port);
  system = await TestSystem.startCloudctl({
    dir,
    agent: { id: 'previews-agent', token: TOKENS.agent },
    users: [
      { name: 'olga', token: TOKENS.ops, roles: ['ops'] },
      { name: 'vera', token: TOKENS.viewer, roles: ['viewers'] },
    ],
    account: {
      name: ACCOUNT,
      kubeconfig: sharedCluster().kubeconfigPath,
      namespaces: [NS],
      kinds: ['replicaSet', 'service'],
      read: ['ops', 'viewers'],
      write: ['ops'],
    },
  });
  await system.startAgent();
  ops = apiClient(system.url, TOKENS.ops);
  viewer = apiClient(system.url, TOKENS.viewer);
}, 120_000);

afterAll(async () => {
  await system?.stop();
  await new Promise((resolve) => server?.close(resolve));
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('exposeServices: preview URLs through the agent', () => {
  it('opens a URL that reaches the Service with path, query and body, without cloudctl credentials, until its TTL', async () => {
    // A first deployment has no old version to canary against: its strategy's steps are skipped.
    expect((await finished(await submit('potato:1', [SERVICE]))).status).toBe('SUCCEEDED');
    const id = await submit('potato:2', [SERVICE]);
    const done = await finished(id);
    expect(done.status, JSON.stringify(done.targets[0])).toBe('SUCCEEDED');
    expect(exposeStep(done)).toMatchObject({ status: 'SUCCEEDED' });
    expect(exposeStep(done).message).toMatch(/^preview URLs of web-preview open until /);
    const [preview] = done.previews ?? [];
    if (preview === undefined) throw new Error(`no preview on the record: ${JSON.stringify(done)}`);
    expect(preview).toMatchObject({ service: SERVICE, state: 'ACTIVE' });
    expect(preview.url).toMatch(new RegExp(`^${system.url}/previews/[A-Za-z0-9_-]{43}/$`));
    // The deployment's page lists it, with its link while it is active.
    const page = await fetch(`${system.url}/status/deployments/${id}`, {
      headers: { authorization: `Bearer ${TOKENS.ops}` },
    });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`data-preview="${preview.id}" data-state="ACTIVE"`);
    expect(html).toContain(`href="${preview.url}"`);

    const got = await fetch(`${preview.url}fruit/potato?kind=russet&n=2`, {
      headers: { authorization: `Bearer ${TOKENS.ops}`, cookie: 'cloudctl_session=secret' },
    });
    expect(got.status).toBe(200);
    expect(await got.text()).toBe('backend saw GET /fruit/potato?kind=russet&n=2 with 0 bytes');
    expect(got.headers.get('x-served-by')).toBe('preview-backend');
    expect(got.headers.get('set-cookie')).toBeNull();
    expect(got.headers.get('content-security-policy')).toMatch(/^sandbox /);
    const seen = received.at(-1);
    expect(seen).toMatchObject({ method: 'GET', url: '/fruit/potato?kind=russet&n=2' });
    expect(seen?.headers.authorization).toBeUndefined();
    expect(seen?.headers.cookie).toBeUndefined();

    const posted = await fetch(`${preview.url}orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ potatoes: 3 }),
    });
    expect(await posted.text()).toBe('backend saw POST /orders with 14 bytes');
    expect(received.at(-1)).toMatchObject({
      body: '{"potatoes":3}',
      headers: { 'content-type': 'application/json' },
    });
    // The Service's own status comes back as it is.
    expect((await fetch(`${preview.url}teapot`)).status).toBe(418);

    const wait = Date.parse(preview.expiresAt) - Date.now();
    if (wait > 0) await sleep(wait + 500);
    const expired = await fetch(`${preview.url}fruit/potato`);
    expect(expired.status).toBe(410);
    expect(((await expired.json()) as { message: string }).message).toMatch(
      new RegExp(`the preview of Service ${NS}/${SERVICE} \\(deployment ${id}\\) expired at `),
    );
    const listed = await ops.get(`/deployments/${id}/previews`);
    expect(z.array(previewSchema).parse(listed.body)[0]?.state).toBe('EXPIRED');
  }, 180_000);

  it('keeps a URL across a restart of cloudctl; revokes it for a user with WRITE (410 from then on), not for a reader; an unknown URL is 404', async () => {
    // Long enough to outlast a restart of cloudctl on a loaded machine.
    const id = await submit('potato:3', [SERVICE], 600);
    const done = await finished(id);
    const [preview] = done.previews ?? [];
    if (preview === undefined) throw new Error(`no preview on the record: ${JSON.stringify(done)}`);
    expect((await fetch(preview.url)).status).toBe(200);
    // Stored, not held: after a restart of cloudctl the same URL answers again, once the agent is back.
    await system.restartCloudctl();
    const deadline = Date.now() + 60_000;
    let again = await fetch(preview.url);
    while (again.status === 503 && Date.now() < deadline) {
      await sleep(250);
      again = await fetch(preview.url);
    }
    expect(again.status).toBe(200);
    expect(await again.text()).toBe('backend saw GET / with 0 bytes');

    expect((await viewer.delete(`/deployments/${id}/previews/${preview.id}`)).status).toBe(403);
    const revoked = await ops.delete(`/deployments/${id}/previews/${preview.id}`);
    expect(revoked.status).toBe(200);
    expect(previewSchema.parse(revoked.body)).toMatchObject({ state: 'REVOKED', revokedBy: 'olga' });
    const gone = await fetch(`${preview.url}fruit`);
    expect(gone.status).toBe(410);
    expect(((await gone.json()) as { message: string }).message).toMatch(/was revoked at .* by olga$/);
    expect((await fetch(`${system.url}/previews/${'x'.repeat(43)}/`)).status).toBe(404);
  }, 120_000);

  it('fails the step naming a Service that does not exist', async () => {
    const id = await submit('potato:4', [SERVICE, 'no-such-service']);
    const done = await finished(id);
    expect(exposeStep(done)).toMatchObject({
      status: 'FAILED',
      message: `exposeServices: Service 'no-such-service' does not exist in namespace ${NS}`,
    });
    expect(done.previews).toEqual([]);
  }, 120_000);
});
