import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { freePort } from '../cluster/free-port.ts';
import { programCommand } from '../support/program-command.ts';
import { writeConfig } from './config/config-fixture.ts';

const run = promisify(execFile);

async function exitOf(args: string[], env: NodeJS.ProcessEnv = {}) {
  try {
    const agent = programCommand('orch-agent', args, env);
    const { stdout, stderr } = await run(agent.command, agent.args, { env: agent.env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('orch-agent binary', () => {
  it('prints its version and a help that lists its commands', async () => {
    expect((await exitOf(['--version'])).stdout.trim()).toBe(pkg.version);
    const help = await exitOf(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['run --config FILE', 'config validate FILE', 'config print FILE']) {
      expect(help.stdout).toContain(command);
    }
  });

  it.each([
    [['run', '--help']],
    [['run', '--config', 'a.yaml', '-h']],
    [['config', 'validate', '--help']],
    [['config', 'print', 'a.yaml', '--help']],
  ])('prints the usage for --help after a subcommand: %j', async (args) => {
    const help = await exitOf(args);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('run --config FILE');
  });

  it('exits 2 on a usage error and 1 on an invalid config', async () => {
    expect((await exitOf(['frobnicate'])).code).toBe(2);
    expect((await exitOf(['run'])).code).toBe(2);
    const bad = await exitOf(['config', 'validate', writeConfig('logging:\n  level: loud\n')]);
    expect(bad.code).toBe(1);
  });

  it('refuses to run when a file named by a setting cannot be read, naming the setting', async () => {
    const file = writeConfig(
      'orchestrator:\n  accounts:\n    - name: a\n      orchConfigFile: /nonexistent/kubeconfig\n',
    );
    const result = await exitOf(['run', '--config', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${file}:4:7: error: orchestrator.accounts[0].orchConfigFile: cannot read /nonexistent/kubeconfig: ENOENT`,
    );
  });

  it('exits 1 naming the setting when a side port is taken', async () => {
    const port = await freePort();
    const blocker = createServer().listen(port, '127.0.0.1');
    await once(blocker, 'listening');
    try {
      const result = await exitOf([
        'run',
        '--config',
        writeConfig(`server:\n  host: 127.0.0.1\n  port: ${port}\n`),
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`server.port: port ${port} on 127.0.0.1 is already in use`);
    } finally {
      blocker.close();
    }
  });

  it.each([
    [
      'grpc_proxy',
      'http://user:s3cret@[bad',
      'grpc_proxy is not a URL: expected http://[user:password@]host:port',
    ],
    [
      'HTTPS_PROXY',
      'socks5://user:s3cret@proxy:1080',
      'HTTPS_PROXY: only http:// proxies (HTTP CONNECT) are supported, not socks5:',
    ],
  ])(
    'exits 1 naming %s when it is no http:// proxy, without a stack or its password',
    async (name, value, words) => {
      const file = writeConfig(
        `cloudctl:\n  grpc: cloudctl.example:9091\n  insecure: true\nserver:\n  host: 127.0.0.1\n  port: ${await freePort()}\n`,
      );
      const result = await exitOf(['run', '--config', file], { [name]: value, NO_PROXY: '' });
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(`orch-agent: ${words}`);
      expect(result.stderr + result.stdout).not.toContain('s3cret');
    },
  );

  it.each(['SIGTERM', 'SIGINT'] as const)('runs until %s, then logs its stop and exits 0', async (signal) => {
    const file = writeConfig(
      `logging:\n  format: json\nserver:\n  host: 127.0.0.1\n  port: ${await freePort()}\n`,
    );
    const agent = programCommand('orch-agent', ['run', '--config', file]);
    const child = spawn(agent.command, agent.args, { env: agent.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let signalled = false;
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (!signalled && stdout.includes('orch-agent started')) {
        signalled = true;
        child.kill(signal);
      }
    });
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    // The lifecycle lines; the connection component logs its own attempts alongside.
    const messages = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((m) => m.component === undefined);
    expect(messages.map((m) => m.msg)).toEqual([
      'orch-agent started',
      'orch-agent stopping: no new operations',
      'orch-agent stopped',
    ]);
    expect(messages[1].signal).toBe(signal);
  });
});
