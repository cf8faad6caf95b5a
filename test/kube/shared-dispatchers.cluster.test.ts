// Requests to one API server reuse their TLS connections (shared-dispatchers.ts): client-node alone
// builds a new undici Agent, and so opens a new connection, for every request whose kubeconfig has
// TLS settings. New connections are counted from undici's own diagnostics channel while KubeHttp
// talks to the shared cluster (its CA from the kubeconfig, a bearer token).
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeHttp } from '../../src/kube/index.ts';
import { sharedCluster } from '../cluster/index.ts';

let connects = 0;
const counted = () => {
  connects++;
};

afterEach(() => {
  unsubscribe('undici:client:connected', counted);
});

function kubeConfig(user: Record<string, unknown>, caFile: string, server: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, caFile }],
    users: [{ name: 'u', ...user }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

describe('connections to the API server', () => {
  it('twenty requests in a row, and two KubeHttp on one kubeconfig, use one TLS connection', async () => {
    const { server, caFile, adminToken } = sharedCluster();
    const kc = kubeConfig({ token: adminToken }, caFile, server);
    const first = new KubeHttp(kc, server);
    const second = new KubeHttp(kc, server);
    subscribe('undici:client:connected', counted);
    connects = 0;
    for (let i = 0; i < 10; i++) {
      expect((await first.request({ verb: 'get', method: 'GET', path: '/version' })).status).toBe(200);
      expect((await second.request({ verb: 'get', method: 'GET', path: '/api/v1/namespaces' })).status).toBe(
        200,
      );
    }
    expect(connects).toBe(1);
  });

  it('a kubeconfig whose TLS material changes (a rotated client setting) gets a new connection for it', async () => {
    const { server, caFile, adminToken } = sharedCluster();
    const kc = kubeConfig({ token: adminToken }, caFile, server);
    const http = new KubeHttp(kc, server);
    subscribe('undici:client:connected', counted);
    connects = 0;
    await http.request({ verb: 'get', method: 'GET', path: '/version' });
    await http.request({ verb: 'get', method: 'GET', path: '/version' });
    expect(connects).toBe(1);
    // The same cluster under another server name the certificate also carries: other TLS options.
    const cluster = kc.getCurrentCluster();
    if (cluster === null) throw new Error('no cluster');
    Object.assign(cluster, { tlsServerName: 'kubernetes' });
    await http.request({ verb: 'get', method: 'GET', path: '/version' });
    await http.request({ verb: 'get', method: 'GET', path: '/version' });
    expect(connects).toBe(2);
  });
});
