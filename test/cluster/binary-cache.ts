// Where the cluster binaries live and whether they are there. The cache sits outside the clone
// (`$ORCH_AGENT_CACHE_DIR`, else `~/.cache/orch-agent`) so a fresh CI clone on the same machine reuses
// it, in a folder keyed by the Kubernetes release and a hash of the Go module that builds them: any
// change to go.mod, go.sum or a Go source gives a new folder, never a stale binary.
import { createHash } from 'node:crypto';
import { access, constants, readdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Every binary the tools module builds; the build is complete only when all are present. */
export const CLUSTER_BINARIES = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kwok',
  'kubectl',
  'helm',
  'grpcurl',
  'reaper',
] as const;

export type ClusterBinary = (typeof CLUSTER_BINARIES)[number];

/** The built binaries, found by name. */
export interface Binaries {
  readonly binDir: string;
  path(name: ClusterBinary): string;
}

export interface BinaryCache {
  /** The Go module under test/cluster/tools. */
  readonly toolsDir: string;
  /** `v1.36.3-<hash>`: the Kubernetes release, then 12 hex digits of the module's hash. */
  readonly key: string;
  readonly kubernetesVersion: string;
  /** `<cache>/cluster/<key>`; holds `bin/` once a build has completed. */
  readonly dir: string;
  readonly binDir: string;
}

export const TOOLS_DIR = fileURLToPath(new URL('./tools/', import.meta.url));

export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.ORCH_AGENT_CACHE_DIR;
  return configured !== undefined && configured !== '' ? configured : join(homedir(), '.cache', 'orch-agent');
}

/** Reads the pinned Kubernetes release from go.mod and hashes the module's inputs. */
export async function locateBinaryCache(
  env: NodeJS.ProcessEnv = process.env,
  toolsDir: string = TOOLS_DIR,
): Promise<BinaryCache> {
  const goMod = await readFile(join(toolsDir, 'go.mod'), 'utf8');
  const pinned = /^\s*k8s\.io\/kubernetes\s+(v\S+)/m.exec(goMod);
  if (pinned?.[1] === undefined) throw new Error(`${toolsDir}go.mod does not require k8s.io/kubernetes`);
  const kubernetesVersion = pinned[1];
  const hash = createHash('sha256');
  for (const file of await moduleInputs(toolsDir)) {
    // The path is hashed with the content so a renamed command also changes the key.
    hash.update(relative(toolsDir, file));
    hash.update('\0');
    hash.update(await readFile(file));
    hash.update('\0');
  }
  const key = `${kubernetesVersion}-${hash.digest('hex').slice(0, 12)}`;
  const dir = join(cacheRoot(env), 'cluster', key);
  return { toolsDir, key, kubernetesVersion, dir, binDir: join(dir, 'bin') };
}

async function moduleInputs(toolsDir: string): Promise<string[]> {
  const entries = await readdir(toolsDir, { recursive: true, withFileTypes: true });
  const goSources = entries
    .filter((e) => e.isFile() && e.name.endsWith('.go'))
    .map((e) => join(e.parentPath, e.name));
  return [join(toolsDir, 'go.mod'), join(toolsDir, 'go.sum'), ...goSources.sort()];
}

/** The binaries that are not (yet) in the cache, in build order. */
export async function missingBinaries(cache: BinaryCache): Promise<ClusterBinary[]> {
  const missing: ClusterBinary[] = [];
  for (const name of CLUSTER_BINARIES) {
    try {
      await access(join(cache.binDir, name), constants.X_OK);
    } catch {
      missing.push(name);
    }
  }
  return missing;
}

/** All binaries, or an error telling the user how to build them. */
export async function resolveBinaries(cache: BinaryCache): Promise<Binaries> {
  const missing = await missingBinaries(cache);
  if (missing.length > 0) {
    throw new Error(
      `cluster binaries missing from ${cache.binDir}: ${missing.join(', ')}. Run \`npm run cluster:build\` ` +
        '(builds them from test/cluster/tools with Go; about 10 minutes cold, seconds when cached).',
    );
  }
  const { binDir } = cache;
  return { binDir, path: (name) => join(binDir, name) };
}
