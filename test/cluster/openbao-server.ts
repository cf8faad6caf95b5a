// An OpenBao dev server (`bao server -dev`): in memory, unsealed, KV version 2 mounted at `secret/`,
// and a root token we choose. It runs through the reaper like the cluster's processes, so it cannot
// outlive the test process.
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { locateBinaryCache, resolveBinaries } from './binary-cache.ts';
import { ClusterProcess } from './cluster-process.ts';
import { freePort } from './free-port.ts';
import { resolveOpenBao } from './openbao-binary.ts';

export interface OpenBao {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly rootToken: string;
  /** Calls the HTTP API as root, in an OpenBao namespace if given; throws on an answer other than 2xx. */
  api(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
    namespace?: string,
  ): Promise<unknown>;
  stop(): Promise<void>;
}

export async function startOpenBao(dir: string): Promise<OpenBao> {
  const binary = await resolveOpenBao();
  const reaper = (await resolveBinaries(await locateBinaryCache())).path('reaper');
  await mkdir(join(dir, 'logs'), { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const rootToken = randomBytes(16).toString('hex');
  const process = await ClusterProcess.start(
    {
      name: 'openbao',
      binary,
      logFile: join(dir, 'logs', 'openbao.log'),
      args: ['server', '-dev', `-dev-root-token-id=${rootToken}`, `-dev-listen-address=127.0.0.1:${port}`],
      env: { HOME: dir, PATH: '/usr/bin:/bin' },
    },
    reaper,
  );
  await process.ready(
    'health',
    async () => {
      const response = await fetch(`${url}/v1/sys/health`).catch(() => undefined);
      return response?.status === 200 ? true : undefined;
    },
    30_000,
  );
  return {
    url,
    rootToken,
    async api(method, path, body, namespace) {
      const response = await fetch(`${url}/v1/${path}`, {
        method,
        headers: {
          'X-Vault-Token': rootToken,
          'content-type': 'application/json',
          ...(namespace === undefined ? {} : { 'X-Vault-Namespace': namespace }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (response.status >= 300)
        throw new Error(`OpenBao ${method} ${path}: HTTP ${response.status}: ${text}`);
      return text === '' ? undefined : JSON.parse(text);
    },
    async stop() {
      await process.stop();
    },
  };
}
