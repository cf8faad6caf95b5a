// The certificates between the API server and the fake kubelet (fake-kubelet.ts), made fresh per
// cluster: one CA, as a cluster CA signs both sides in kubeadm's layout. It signs the API server's
// kubelet client certificate (`--kubelet-client-certificate`/`--kubelet-client-key`, which the fake
// kubelet requires and verifies) and the fake kubelet's serving certificate for 127.0.0.1, which the
// API server verifies through `--kubelet-certificate-authority` (without that flag it would skip the
// check). The CA's key stays in memory: nothing else can be issued once the cluster has started.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createCa, type IssuedCertificate } from '../support/pki.ts';

/** The common name of the API server's client certificate; the only user the fake kubelet serves. */
export const KUBELET_CLIENT_COMMON_NAME = 'kube-apiserver-kubelet-client';

export interface KubeletPki {
  /** PEM of the CA: the fake kubelet's client CA, and the API server's kubelet certificate authority. */
  readonly ca: string;
  readonly caFile: string;
  /** The API server's client certificate and key files. */
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  /** The fake kubelet's serving certificate and key. */
  readonly serving: IssuedCertificate;
}

export async function writeKubeletPki(dir: string): Promise<KubeletPki> {
  const folder = join(dir, 'kubelet-pki');
  await mkdir(folder, { mode: 0o700 });
  const ca = await createCa('orch-agent test kubelet CA');
  const [client, serving] = await Promise.all([
    ca.issue({ commonName: KUBELET_CLIENT_COMMON_NAME, usage: 'client' }),
    ca.issue({ commonName: 'fake-kubelet', ipAddresses: ['127.0.0.1'], usage: 'server' }),
  ]);
  const caFile = join(folder, 'ca.crt');
  const clientCertFile = join(folder, 'apiserver-kubelet-client.crt');
  const clientKeyFile = join(folder, 'apiserver-kubelet-client.key');
  await Promise.all([
    writeFile(caFile, ca.certPem),
    writeFile(clientCertFile, client.certPem),
    writeFile(clientKeyFile, client.keyPem, { mode: 0o600 }),
  ]);
  return { ca: ca.certPem, caFile, clientCertFile, clientKeyFile, serving };
}
