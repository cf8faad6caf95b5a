// The fake kubelet: an HTTPS server in the harness's process that plays one node's kubelet for the
// API server's `pods/log` requests, which kwok (no kubelet) cannot answer. It serves
// `GET /containerLogs/{namespace}/{pod}/{container}` for the pods bound to its node, and only to a
// client presenting the API server's kubelet client certificate (kubelet-pki.ts): the TLS handshake
// refuses any other. What a container "printed" is written by the test on its pod, in the
// annotation `orch-agent-test/log.<container>` (and `orch-agent-test/previous-log.<container>` for
// the previous instance), so a test asserts a literal it chose. The node is a kwok node (kwok keeps
// it Ready and runs its pods' stages) created with an InternalIP of 127.0.0.1 and this server's port
// as its kubelet endpoint: kwok's node stages keep addresses already present and write
// `daemonEndpoints` only when kwok has a `--node-port`, which ours has not. A NoSchedule taint keeps
// the scheduler from placing other tests' pods there; a test puts its pods on it with `nodeName`.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { z } from 'zod';
import type { ApiClient } from './api-client.ts';
import { renderContainerLog } from './container-log.ts';
import { KUBELET_CLIENT_COMMON_NAME, type KubeletPki } from './kubelet-pki.ts';
import { kwokNode } from './kwok.ts';

export const FAKE_KUBELET_NODE = 'fake-kubelet-node';
export const FAKE_KUBELET_TAINT = {
  key: 'orch-agent-test/fake-kubelet',
  value: 'true',
  effect: 'NoSchedule',
};
const LOG_ANNOTATION = 'orch-agent-test/log.';
const PREVIOUS_LOG_ANNOTATION = 'orch-agent-test/previous-log.';

/** Annotations making each container of a pod on the fake kubelet's node "print" the given text. */
export function podLogAnnotations(logs: Record<string, string>, previous: Record<string, string> = {}) {
  return Object.fromEntries([
    ...Object.entries(logs).map(([container, text]) => [`${LOG_ANNOTATION}${container}`, text]),
    ...Object.entries(previous).map(([container, text]) => [`${PREVIOUS_LOG_ANNOTATION}${container}`, text]),
  ]);
}

const ContainerState = z
  .object({
    running: z.object({ startedAt: z.string().optional() }).optional(),
    terminated: z.object({ startedAt: z.string().optional() }).optional(),
    waiting: z.object({ reason: z.string().optional() }).optional(),
  })
  .optional();
const ContainerStatus = z.object({ name: z.string(), state: ContainerState, lastState: ContainerState });
const Pod = z.object({
  metadata: z.object({ annotations: z.record(z.string(), z.string()).optional() }),
  spec: z.object({
    nodeName: z.string().optional(),
    containers: z.array(z.object({ name: z.string() })),
    initContainers: z.array(z.object({ name: z.string() })).optional(),
  }),
  status: z
    .object({
      containerStatuses: z.array(ContainerStatus).optional(),
      initContainerStatuses: z.array(ContainerStatus).optional(),
    })
    .optional(),
});
type Pod = z.infer<typeof Pod>;

const count = z.coerce.number().int();
const LogQuery = z.object({
  tailLines: count.min(0).optional(),
  limitBytes: count.min(1).optional(),
  timestamps: z.enum(['true', 'false']).optional(),
  previous: z.enum(['true', 'false']).optional(),
  follow: z.enum(['true', 'false']).optional(),
});

/** A refusal as the kubelet words it: plain text with a status. */
class KubeletError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export interface FakeKubelet {
  readonly nodeName: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startFakeKubelet(client: ApiClient, pki: KubeletPki): Promise<FakeKubelet> {
  const server = createServer(
    {
      key: pki.serving.keyPem,
      cert: pki.serving.certPem,
      ca: pki.ca,
      // The handshake itself refuses a client without a certificate from the kubelet CA.
      requestCert: true,
      rejectUnauthorized: true,
    },
    (request, response) => {
      serve(client, request, response).catch((error: unknown) => {
        answer(response, 500, error instanceof Error ? error.message : String(error));
      });
    },
  );
  const port = await listen(server);
  return {
    nodeName: FAKE_KUBELET_NODE,
    port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = server.address();
      if (address !== null && typeof address === 'object') resolve(address.port);
      else reject(new Error(`fake kubelet: no port from ${String(address)}`));
    });
  });
}

function answer(response: ServerResponse, status: number, body: string | Buffer): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response
    .writeHead(status, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    })
    .end(body);
}

async function serve(client: ApiClient, request: IncomingMessage, response: ServerResponse): Promise<void> {
  try {
    // The CA check happened in the handshake; the kubelet then authorizes the user it names.
    const user = (request.socket as TLSSocket).getPeerCertificate().subject?.CN;
    if (user !== KUBELET_CLIENT_COMMON_NAME) {
      throw new KubeletError(403, `Forbidden (user=${user}, verb=get, resource=nodes, subresource(s)=[log])`);
    }
    const url = new URL(request.url ?? '/', 'https://kubelet');
    const route = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (request.method !== 'GET' || route === null) throw new KubeletError(404, '404 page not found');
    const [namespace, podName, container] = route.slice(1).map(decodeURIComponent) as [
      string,
      string,
      string,
    ];
    const query = LogQuery.safeParse(Object.fromEntries(url.searchParams));
    if (!query.success) throw new KubeletError(400, '{"message": "Unable to decode query."}');
    const pod = await boundPod(client, namespace, podName);
    answer(response, 200, containerLog(pod, podName, container, query.data));
  } catch (error) {
    if (!(error instanceof KubeletError)) throw error;
    answer(response, error.status, error.message);
  }
}

/** The pod, if it exists and is bound to the fake kubelet's node (a kubelet knows no other). */
async function boundPod(client: ApiClient, namespace: string, name: string): Promise<Pod> {
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}`;
  const response = await client.get(path);
  const pod = response.status === 200 ? Pod.parse(response.json) : undefined;
  if (pod === undefined || pod.spec.nodeName !== FAKE_KUBELET_NODE) {
    if (response.status !== 200 && response.status !== 404) {
      throw new Error(`fake kubelet: GET ${path}: HTTP ${response.status}: ${response.text}`);
    }
    throw new KubeletError(404, `pod "${name}" does not exist`);
  }
  return pod;
}

function containerLog(pod: Pod, podName: string, container: string, query: z.infer<typeof LogQuery>): Buffer {
  const declared = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])].some(
    (c) => c.name === container,
  );
  if (!declared) throw new KubeletError(404, `container "${container}" not found in pod "${podName}"`);
  const status = [
    ...(pod.status?.containerStatuses ?? []),
    ...(pod.status?.initContainerStatuses ?? []),
  ].find((s) => s.name === container);
  const annotations = pod.metadata.annotations ?? {};
  const options = {
    ...(query.tailLines === undefined ? {} : { tailLines: query.tailLines }),
    ...(query.limitBytes === undefined ? {} : { limitBytes: query.limitBytes }),
    timestamps: query.timestamps === 'true',
  };
  if (query.previous === 'true') {
    const text = annotations[`${PREVIOUS_LOG_ANNOTATION}${container}`];
    if (text === undefined) {
      throw new KubeletError(
        400,
        `previous terminated container "${container}" in pod "${podName}" not found`,
      );
    }
    return renderContainerLog(text, status?.lastState?.terminated?.startedAt, options);
  }
  const started = status?.state?.running ?? status?.state?.terminated;
  if (started === undefined) {
    const reason = status?.state?.waiting?.reason ?? 'ContainerCreating';
    throw new KubeletError(
      400,
      `container "${container}" in pod "${podName}" is waiting to start: ${reason}`,
    );
  }
  // `follow` ends with the text written so far: a fake container prints nothing more.
  return renderContainerLog(annotations[`${LOG_ANNOTATION}${container}`] ?? '', started.startedAt, options);
}

/** The fake kubelet's node: a kwok node whose kubelet endpoint is 127.0.0.1:<port>. */
export function fakeKubeletNode(port: number): object {
  const node = kwokNode(FAKE_KUBELET_NODE) as { status: object };
  return {
    ...node,
    spec: { taints: [FAKE_KUBELET_TAINT] },
    status: {
      ...node.status,
      addresses: [
        { type: 'InternalIP', address: '127.0.0.1' },
        { type: 'Hostname', address: FAKE_KUBELET_NODE },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: port } },
    },
  };
}

const NodeStatus = z.object({
  status: z
    .object({
      conditions: z.array(z.object({ type: z.string(), status: z.string() })).optional(),
      daemonEndpoints: z.object({ kubeletEndpoint: z.object({ Port: z.number() }).optional() }).optional(),
    })
    .optional(),
});

/** Creates the fake kubelet's node (the cluster is new: it cannot exist yet). */
export async function registerFakeKubeletNode(client: ApiClient, port: number): Promise<void> {
  const created = await client.request('POST', '/api/v1/nodes', { body: fakeKubeletNode(port) });
  if (created.status !== 201) {
    throw new Error(`create node ${FAKE_KUBELET_NODE}: HTTP ${created.status}: ${created.text}`);
  }
}

/**
 * `true` once kwok has made the node Ready with this port still its kubelet endpoint; throws if kwok
 * replaced the endpoint, so the harness fails loudly should a kwok upgrade start rewriting it.
 */
export async function fakeKubeletNodeReady(client: ApiClient, port: number): Promise<true | undefined> {
  const response = await client.get(`/api/v1/nodes/${FAKE_KUBELET_NODE}`);
  if (response.status !== 200) return undefined;
  const { status } = NodeStatus.parse(response.json);
  const ready = (status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
  const endpoint = status?.daemonEndpoints?.kubeletEndpoint?.Port;
  if (ready && endpoint !== port) {
    throw new Error(
      `kwok replaced node ${FAKE_KUBELET_NODE}'s kubelet endpoint: port ${endpoint}, not ${port}`,
    );
  }
  return ready ? true : undefined;
}
