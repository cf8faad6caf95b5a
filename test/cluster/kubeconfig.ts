// Writes a kubeconfig for a test cluster. JSON is valid YAML, so kubectl, helm, kwok, the controllers
// and @kubernetes/client-node all read it, and nothing here needs a YAML writer.
import { writeFile } from 'node:fs/promises';

export interface KubeconfigSpec {
  readonly server: string;
  /** PEM bundle of the server's CA. */
  readonly ca: string;
  readonly token: string;
  /** Names the cluster, user and context entries. */
  readonly name: string;
}

export function kubeconfig(spec: KubeconfigSpec): string {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: spec.name,
        cluster: {
          server: spec.server,
          'certificate-authority-data': Buffer.from(spec.ca).toString('base64'),
        },
      },
    ],
    users: [{ name: spec.name, user: { token: spec.token } }],
    contexts: [{ name: spec.name, context: { cluster: spec.name, user: spec.name, namespace: 'default' } }],
    'current-context': spec.name,
    preferences: {},
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

export async function writeKubeconfig(path: string, spec: KubeconfigSpec): Promise<void> {
  await writeFile(path, kubeconfig(spec), { mode: 0o600 });
}
