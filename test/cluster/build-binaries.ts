// Builds the cluster binaries from the Go module in test/cluster/tools into the binary cache, or
// reuses them. Go's own caches (GOMODCACHE, GOCACHE) stay at their defaults, so on a machine that
// has built once, a new cache key only recompiles what changed and relinks.
import { spawn } from 'node:child_process';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type BinaryCache, CLUSTER_BINARIES, missingBinaries } from './binary-cache.ts';
import { stopwatch } from './elapsed.ts';

export interface BuildOptions {
  readonly cache: BinaryCache;
  /** One line of progress for a person watching. */
  readonly log: (line: string) => void;
  /** How often a progress line is printed while Go compiles. */
  readonly progressEveryMs?: number;
  readonly env?: NodeJS.ProcessEnv;
}

export interface BuildResult {
  /** False when every binary was already in the cache. */
  readonly built: boolean;
  readonly ms: number;
}

export async function buildBinaries(options: BuildOptions): Promise<BuildResult> {
  const { cache, log } = options;
  const env = options.env ?? process.env;
  const elapsed = stopwatch();
  const missing = await missingBinaries(cache);
  if (missing.length === 0) {
    log(`binaries for ${cache.key} are cached in ${cache.binDir}`);
    return { built: false, ms: elapsed.ms() };
  }
  log(`building ${missing.join(', ')} for ${cache.key} (cold: about 10 minutes on 2 cores; warm: a link)`);
  const ldflags = await versionLdflags(cache.toolsDir, env);
  // Built next to the final folder and renamed into place, so an interrupted build never leaves a
  // half-filled bin/ that the harness would take for a complete one.
  const partial = join(cache.dir, `bin.partial-${process.pid}`);
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  try {
    await goBuild({
      toolsDir: cache.toolsDir,
      outDir: partial,
      ldflags,
      env,
      progress: (packages) => log(`compiled ${packages} packages, ${elapsed()}`),
      linked: (name) => log(`linked ${name}, ${elapsed()}`),
      progressEveryMs: options.progressEveryMs ?? 15_000,
    });
    const built = new Set(await readdir(partial));
    const absent = CLUSTER_BINARIES.filter((name) => !built.has(name));
    if (absent.length > 0) throw new Error(`go build finished without ${absent.join(', ')}`);
    await rm(cache.binDir, { recursive: true, force: true });
    await rename(partial, cache.binDir);
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
  return { built: true, ms: elapsed.ms() };
}

/**
 * Version stamps the upstream release builds set with -X. Without them kube-apiserver reports
 * `v0.0.0-master` from /version, and the agent sends the server's version when it registers.
 */
async function versionLdflags(toolsDir: string, env: NodeJS.ProcessEnv): Promise<string> {
  const out = await run(
    'go',
    [
      'list',
      '-m',
      '-f',
      '{{.Path}} {{.Version}}',
      'k8s.io/kubernetes',
      'helm.sh/helm/v3',
      'github.com/fullstorydev/grpcurl',
      'sigs.k8s.io/kwok',
    ],
    toolsDir,
    env,
  );
  const versions = new Map<string, string>();
  for (const line of out.trim().split('\n')) {
    const [path, version] = line.split(' ');
    if (path !== undefined && version !== undefined) versions.set(path, version);
  }
  const kube = versions.get('k8s.io/kubernetes') ?? '';
  const [major, minor] = kube.replace(/^v/, '').split('.');
  const flags = ['-s', '-w'];
  for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
    flags.push(
      `-X ${pkg}.gitVersion=${kube}`,
      `-X ${pkg}.gitMajor=${major}`,
      `-X ${pkg}.gitMinor=${minor}`,
      `-X ${pkg}.gitTreeState=clean`,
    );
  }
  flags.push(`-X helm.sh/helm/v3/internal/version.version=${versions.get('helm.sh/helm/v3')}`);
  flags.push(`-X main.version=${versions.get('github.com/fullstorydev/grpcurl')}`);
  flags.push(`-X sigs.k8s.io/kwok/pkg/consts.Version=${versions.get('sigs.k8s.io/kwok')?.replace(/^v/, '')}`);
  return flags.join(' ');
}

interface GoBuild {
  readonly toolsDir: string;
  readonly outDir: string;
  readonly ldflags: string;
  readonly env: NodeJS.ProcessEnv;
  readonly progress: (packages: number) => void;
  readonly linked: (name: string) => void;
  readonly progressEveryMs: number;
}

/** `go build ./cmd/... tool`: our own commands plus every `tool` line of go.mod, in one invocation. */
async function goBuild(build: GoBuild): Promise<void> {
  const child = spawn(
    'go',
    ['build', '-v', `-ldflags=${build.ldflags}`, '-o', `${build.outDir}/`, './cmd/...', 'tool'],
    {
      cwd: build.toolsDir,
      env: build.env,
      stdio: ['ignore', 'inherit', 'pipe'],
    },
  );
  let packages = 0;
  const errors: string[] = [];
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    for (const line of chunk.split('\n')) {
      if (line === '') continue;
      // -v prints one import path per compiled package; anything else is a diagnostic.
      if (/^[\w.-]+(\/[\w.~+-]+)*$/.test(line)) packages++;
      else errors.push(line);
    }
  });
  const seen = new Set<string>();
  const timer = setInterval(async () => {
    build.progress(packages);
    for (const name of await readdir(build.outDir).catch(() => [])) {
      if (!seen.has(name)) {
        seen.add(name);
        build.linked(name);
      }
    }
  }, build.progressEveryMs);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    if (code !== 0) throw new Error(`go build failed (exit ${code}):\n${errors.slice(-40).join('\n')}`);
  } finally {
    clearInterval(timer);
  }
}

async function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    err += c;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', (e) => reject(new Error(`${command}: ${e.message} (is Go installed and on PATH?)`)));
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${code}): ${err.trim()}`);
  return out;
}
