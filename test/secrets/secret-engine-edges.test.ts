import { writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubernetesSecretAccess, kubernetesSecretEngine, vaultClient } from '../../src/secrets/index.ts';
import { tempDir } from '../support/temp-dir.ts';

// A server that accepts connections and never answers: the engines must give up, saying so, instead
// of holding the agent's start.
let silent: Server;
let url: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  silent = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const address = silent.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  url = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

describe('secret engines at their edges: servers that never answer, missing or refused credentials', () => {
  it('vault gives up after its timeout', async () => {
    const client = vaultClient(
      { enabled: true, url, authMethod: 'TOKEN', path: 'kubernetes' },
      { fetch, token: async () => 'a-token', serviceAccountToken: async () => '', timeoutMs: 300 },
    );
    await expect(client.readKv2('secret', 'agent')).rejects.toMatchObject({ code: 'SECRET_UNREACHABLE' });
    await expect(client.readKv2('secret', 'agent')).rejects.toThrow(
      `Vault at ${url} did not answer within 0.3 s`,
    );
  });

  it('k8s says what client-node refuses in a kubeconfig instead of crashing', async () => {
    const kubeconfig = join(tempDir(), 'kubeconfig');
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: url } }],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const engine = kubernetesSecretEngine(kubernetesSecretAccess({ env: { KUBECONFIG: kubeconfig } }));
    await expect(engine.resolve({ n: 'agent', k: 'token', ns: 'ns' })).rejects.toThrow(
      /^cannot read Kubernetes Secret ns\/agent: HTTP protocol is not allowed/,
    );
  });

  it('k8s says where it looked when there are no credentials at all', async () => {
    const engine = kubernetesSecretEngine(kubernetesSecretAccess({ env: { HOME: tempDir() } }));
    await expect(engine.resolve({ n: 'agent', k: 'token', ns: 'ns' })).rejects.toThrow(
      /^cannot read Kubernetes Secrets: no credentials from a kubeconfig \(KUBECONFIG, then ~\/\.kube\/config\), the agent not being in a pod \(KUBERNETES_SERVICE_HOST unset\): /,
    );
  });

  it('k8s gives up after its timeout', async () => {
    const kubeconfig = join(tempDir(), 'kubeconfig');
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'c',
            cluster: { server: url.replace('http:', 'https:'), 'insecure-skip-tls-verify': true },
          },
        ],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const engine = kubernetesSecretEngine(
      kubernetesSecretAccess({ env: { KUBECONFIG: kubeconfig }, timeoutMs: 300 }),
    );
    await expect(engine.resolve({ n: 'agent', k: 'token', ns: 'ns' })).rejects.toThrow(
      `cannot read Kubernetes Secret ns/agent: ${url.replace('http:', 'https:')} did not answer within 0.3 s`,
    );
  });
});
