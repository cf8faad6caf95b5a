// The two programs as real child processes, as users run them: `cloudctl serve` and `orch-agent run`,
// each from its config file, with its output kept for assertions and failures. Every process is
// stopped (SIGKILL as a last resort) by `stop`, so no test leaves one behind.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { hashToken } from '../../src/cloudctl/index.ts';
import { freePort } from '../cluster/free-port.ts';
import { programCommand } from './program-command.ts';

export interface RunningProcess {
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Sends the signal and waits for the exit; SIGKILL after `graceMs`. Resolves with the exit code. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
}

export function startProcess(
  bin: 'cloudctl' | 'orch-agent',
  args: string[],
  env: NodeJS.ProcessEnv = {},
): RunningProcess {
  const run = programCommand(bin, args, env);
  const child = spawn(run.command, run.args, { env: run.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = once(child, 'exit').then(() => child.exitCode);
  return {
    child,
    output: () => output,
    stop: async (signal = 'SIGTERM', graceMs = 10_000) => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      return child.exitCode;
    },
  };
}

/**
 * Polls `url` until it answers 200; fails with the process's output when it exits or time runs out.
 * The default allows for a 2-core machine running three test files at once (cloudctl's start, its
 * embedded database's migrations included, took 43-50 s at load 15): a start that never comes still
 * fails, and how fast a start is gets measured in bench/, not here.
 */
export async function waitReady(process: RunningProcess, url: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (process.child.exitCode !== null) {
      throw new Error(`exited with ${process.child.exitCode} before ${url} was ready:\n${process.output()}`);
    }
    const ok = await fetch(url).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline)
      throw new Error(`${url} not ready within ${timeoutMs} ms:\n${process.output()}`);
    await sleep(100);
  }
}

/**
 * Writes a config file and starts `cloudctl serve` on it, with `env` over the runner's; resolves
 * once /ready answers.
 */
export async function startCloudctl(
  dir: string,
  name: string,
  yaml: string,
  httpPort: number,
  readyTimeoutMs?: number,
  env: NodeJS.ProcessEnv = {},
): Promise<RunningProcess> {
  const file = join(dir, name);
  await writeFile(file, yaml);
  const cloudctl = startProcess('cloudctl', ['serve', '--config', file], env);
  try {
    await waitReady(cloudctl, `http://127.0.0.1:${httpPort}/ready`, readyTimeoutMs);
  } catch (error) {
    // Not ready: no caller holds it yet, so nothing else would ever stop it.
    await cloudctl.stop('SIGKILL');
    throw error;
  }
  return cloudctl;
}

export interface SystemPlan {
  /** Where config files and cloudctl's embedded database go. */
  dir: string;
  /** A PostgreSQL server for cloudctl instead of the embedded database. */
  databaseUrl?: string;
  agent: { id: string; token: string };
  /** Both programs' log level (default info). */
  logLevel?: 'info' | 'debug';
  users: ReadonlyArray<{ name: string; token: string; roles: readonly string[] }>;
  /** The one account the agent serves. */
  account: {
    name: string;
    kubeconfig: string;
    namespaces: readonly string[];
    kinds: readonly string[];
    read: readonly string[];
    write: readonly string[];
  };
  /** More top-level sections of cloudctl's config, as YAML (e.g. `auth:`). */
  config?: string;
  /** How long cloudctl's first start, and the agent's, may take to be ready (waitReady's default otherwise). */
  readyTimeoutMs?: number;
  /**
   * The agent's `cloudctl.backoff.maxDelay` in milliseconds (grpc's 120 s otherwise). A test that times
   * cloudctl's recovery caps it, or it times how far the agent's backoff grew during the outage.
   */
  agentBackoffMaxMs?: number;
}

/**
 * cloudctl and an agent as processes, configured for one account: what the end-to-end tests of the
 * HTTP API start. cloudctl comes first (tests may prepare the cluster before the agent syncs it).
 */
export class TestSystem {
  readonly url: string;
  readonly #plan: SystemPlan;
  readonly #httpPort: number;
  readonly #grpcPort: number;
  readonly #config: string;
  #cloudctl: RunningProcess;
  #agent: RunningProcess | undefined;
  #agentHealthPort = 0;

  private constructor(
    plan: SystemPlan,
    ports: { http: number; grpc: number },
    config: string,
    cloudctl: RunningProcess,
  ) {
    this.#plan = plan;
    this.#httpPort = ports.http;
    this.#grpcPort = ports.grpc;
    this.#config = config;
    this.#cloudctl = cloudctl;
    this.url = `http://127.0.0.1:${ports.http}`;
  }

  /** Writes cloudctl's config (embedded database, the agent, the users) and serves it until ready. */
  static async startCloudctl(plan: SystemPlan): Promise<TestSystem> {
    // cloudctl is killed and served again on these (tests of restarts): ports no other test is given.
    const ports = { http: await freePort(), grpc: await freePort() };
    const config = [
      `grpc:\n  host: 127.0.0.1\n  port: ${ports.grpc}`,
      `http:\n  host: 127.0.0.1\n  port: ${ports.http}`,
      plan.databaseUrl === undefined
        ? `database:\n  dataDir: ${join(plan.dir, 'cloudctl-data')}`
        : `database:\n  url: ${plan.databaseUrl}`,
      `logging:\n  level: ${plan.logLevel ?? 'info'}`,
      `agents:\n  - id: ${plan.agent.id}\n    tokenHash: ${hashToken(plan.agent.token)}`,
      'users:',
      ...plan.users.map(
        (u) =>
          `  - name: ${u.name}\n    tokenHash: ${hashToken(u.token)}\n    roles: [${u.roles.join(', ')}]`,
      ),
      ...(plan.config === undefined ? [] : [plan.config]),
      '',
    ].join('\n');
    const cloudctl = await startCloudctl(plan.dir, 'cloudctl.yaml', config, ports.http, plan.readyTimeoutMs);
    return new TestSystem(plan, ports, config, cloudctl);
  }

  /** `host:port` of cloudctl's gRPC endpoint, where agents dial. */
  get grpcAddress(): string {
    return `127.0.0.1:${this.#grpcPort}`;
  }

  /**
   * Writes the agent's config for the account and runs it until it is ready (connected and synced).
   * `dial` replaces cloudctl's gRPC address (a proxy in front of it); `as` runs it as another agent
   * than the plan's, with another token (one cloudctl's config does not know: a credential made at
   * runtime).
   */
  async startAgent(options: { dial?: string; as?: { id: string; token: string } } = {}): Promise<void> {
    const identity = options.as ?? this.#plan.agent;
    const { account } = this.#plan;
    const healthPort = await freePort();
    this.#agentHealthPort = healthPort;
    const file = join(this.#plan.dir, 'agent.yaml');
    await writeFile(
      file,
      [
        `cloudctl:\n  grpc: ${options.dial ?? this.grpcAddress}\n  insecure: true\n  auth:\n    token: encrypted:env!n:TEST_AGENT_TOKEN`,
        ...(this.#plan.agentBackoffMaxMs === undefined
          ? []
          : [`  backoff:\n    maxDelay: ${this.#plan.agentBackoffMaxMs * 1_000_000}`]),
        `server:\n  host: 127.0.0.1\n  port: ${healthPort}`,
        'orchestrator:\n  accounts:',
        `    - name: ${account.name}`,
        `      orchConfigFile: ${account.kubeconfig}`,
        `      namespaces: [${account.namespaces.join(', ')}]`,
        `      kinds: [${account.kinds.join(', ')}]`,
        `      permissions:\n        READ: [${account.read.join(', ')}]\n        WRITE: [${account.write.join(', ')}]`,
        `logging:\n  format: json\n  level: ${this.#plan.logLevel ?? 'info'}`,
        '',
      ].join('\n'),
    );
    this.#agent = startProcess('orch-agent', ['run', '--config', file], {
      TEST_AGENT_TOKEN: identity.token,
      ORCH_AGENT_ID: identity.id,
    });
    await waitReady(this.#agent, `http://127.0.0.1:${healthPort}/ready`, this.#plan.readyTimeoutMs);
  }

  /** The running (or last) agent process: its output, pid and exit. */
  get agent(): RunningProcess | undefined {
    return this.#agent;
  }

  /** The agent's health server (`/ready`, `/operations`, ...). */
  get agentUrl(): string {
    return `http://127.0.0.1:${this.#agentHealthPort}`;
  }

  /** The running (or last) cloudctl process. */
  get cloudctl(): RunningProcess {
    return this.#cloudctl;
  }

  /** Where cloudctl keeps its embedded database: open it once cloudctl has stopped. */
  get dataDir(): string {
    return join(this.#plan.dir, 'cloudctl-data');
  }

  /** SIGKILLs the agent: no drain, no goodbye, whatever it held in memory is gone. */
  async killAgent(): Promise<void> {
    await this.#agent?.stop('SIGKILL');
  }

  /** SIGKILLs cloudctl and leaves it down until `serveCloudctl`. */
  async killCloudctl(): Promise<void> {
    await this.#cloudctl.stop('SIGKILL');
  }

  /** Serves the same config (and database) again after `killCloudctl`; resolves once ready. */
  async serveCloudctl(): Promise<void> {
    this.#cloudctl = await startCloudctl(this.#plan.dir, 'cloudctl.yaml', this.#config, this.#httpPort);
  }

  /** Stops cloudctl with `signal` and serves the same config (and database) again. */
  async restartCloudctl(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await this.#cloudctl.stop(signal);
    this.#cloudctl = await startCloudctl(this.#plan.dir, 'cloudctl.yaml', this.#config, this.#httpPort);
  }

  async stop(): Promise<void> {
    await this.#agent?.stop();
    await this.#cloudctl.stop();
  }
}
