// Where the real `orch-agent run` binds its side ports (docs/decisions.md, "Side servers"): metrics
// on all interfaces, since Prometheus scrapes the pod address; pprof on 127.0.0.1 only, because a
// heap snapshot holds every secret in memory.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { networkInterfaces } from 'node:os';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../cluster/free-port.ts';
import { programCommand } from '../../support/program-command.ts';
import { writeConfig } from '../config/config-fixture.ts';

const run = promisify(execFile);

const children: Array<ReturnType<typeof spawn>> = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});

/** IPv4 addresses of this machine other than loopback. */
function nonLoopbackAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => entry.family === 'IPv4' && !entry.internal)
    .map((entry) => entry.address);
}

/** The local address `ss` shows listening on `port` (TCP), e.g. `0.0.0.0` or `127.0.0.1`. */
async function listeningAddresses(port: number): Promise<string[]> {
  const { stdout } = await run('ss', ['-Hltn', `sport = :${port}`]);
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const local = line.trim().split(/\s+/)[3] ?? '';
      return local.slice(0, local.lastIndexOf(':'));
    });
}

/** Status of GET `url`, or the error code when no connection could be made. */
async function reach(url: string): Promise<number | string> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
    await res.arrayBuffer();
    return res.status;
  } catch (error) {
    const cause = error instanceof Error ? error.cause : undefined;
    return cause instanceof Error && 'code' in cause && typeof cause.code === 'string'
      ? cause.code
      : String(error);
  }
}

describe('side server binding of orch-agent run', () => {
  it('binds metrics on all interfaces and pprof on 127.0.0.1 only', async () => {
    const [healthPort, metricsPort, pprofPort] = [await freePort(), await freePort(), await freePort()];
    const file = writeConfig(
      [
        'logging:\n  format: json',
        `server:\n  host: 127.0.0.1\n  port: ${healthPort}`,
        `telemetry:\n  enabled: true\n  port: ${metricsPort}`,
        `pprof:\n  enabled: true\n  port: ${pprofPort}`,
      ].join('\n'),
    );
    const agent = programCommand('orch-agent', ['run', '--config', file]);
    const child = spawn(agent.command, agent.args, { env: agent.env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const started = new Promise<Record<string, unknown>>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        const line = stdout.split('\n').find((l) => l.includes('"orch-agent started"'));
        if (line !== undefined) resolve(JSON.parse(line));
      });
      child.on('exit', (code) => reject(new Error(`exited ${code} before starting: ${stderr}`)));
    });
    const startedLine = await started;
    expect(startedLine).toHaveProperty('listeners', {
      health: `http://127.0.0.1:${healthPort}`,
      metrics: `http://0.0.0.0:${metricsPort}`,
      pprof: `http://127.0.0.1:${pprofPort}`,
    });

    // What the kernel says, whatever the machine's interfaces.
    expect(await listeningAddresses(metricsPort)).toEqual(['0.0.0.0']);
    expect(await listeningAddresses(pprofPort)).toEqual(['127.0.0.1']);

    expect(await reach(`http://127.0.0.1:${metricsPort}/metrics`)).toBe(200);
    expect(await reach(`http://127.0.0.1:${pprofPort}/debug/pprof/`)).toBe(200);
    // From outside loopback: metrics answer, pprof is not even listening there.
    for (const address of nonLoopbackAddresses()) {
      expect(await reach(`http://${address}:${metricsPort}/metrics`), address).toBe(200);
      expect(await reach(`http://${address}:${pprofPort}/debug/pprof/`), address).toBe('ECONNREFUSED');
    }
  });
});
