// The agent names itself to the API server as client-go's clients do (kube-http.ts): the API server
// books a write without a field manager to the user agent's first word, so its managed fields show
// who made the change.
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { KubeHttp } from '../../src/kube/index.ts';
import { isRecord } from '../../src/lib/is-record.ts';
import { sharedCluster } from '../cluster/index.ts';

describe('user agent', () => {
  it('a write without a field manager is booked to orch-agent', async () => {
    const { server, caFile, adminToken } = sharedCluster();
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server, caFile }],
      users: [{ name: 'u', token: adminToken }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const http = new KubeHttp(kc, server);
    const name = `user-agent-${Date.now()}`;
    const created = await http.request({
      verb: 'create',
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } },
    });
    const metadata = isRecord(created.body) && isRecord(created.body.metadata) ? created.body.metadata : {};
    const managers = Array.isArray(metadata.managedFields)
      ? metadata.managedFields.filter(isRecord).map((e) => e.manager)
      : [];
    expect(managers).toEqual(['orch-agent']);
    await http.request({
      verb: 'delete',
      method: 'DELETE',
      path: `/api/v1/namespaces/default/configmaps/${name}`,
    });
  });
});
