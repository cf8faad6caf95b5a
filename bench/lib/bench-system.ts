// The system under measurement, started the way users run it: cloudctl in this process (so a
// benchmark can read its store directly) and the agent as its own process, `bin/orch-agent.js run`,
// whose cost is then read from /proc like any peer's. A benchmark that reports cloudctl's own cost
// runs it as a process too (cloudctl-process.ts); the agent dials either.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import {
  type ControlPlane,
  hashToken,
  parseConfig,
  secretEngines,
  startControlPlane,
} from '../../src/cloudctl/index.ts';
import { freePort } from '../../test/cluster/free-port.ts';
import { programCommand } from '../../test/support/program-command.ts';

export const AGENT_ID = 'bench-agent';
export const ACCOUNT = 'bench';

/** Where an agent dials cloudctl, and the agent's token there. */
export interface CloudctlEndpoint {
  grpcPort: number;
  /** The agent's token. */
  token: string;
}

export interface BenchControlPlane extends CloudctlEndpoint {
  plane: ControlPlane;
  close(): Promise<void>;
}

let runs = 0;

/**
 * cloudctl on its embedded database, as the demo and a default install run it: in a data directory
 * (a new one per run, so every run starts with an empty cache). PGlite's `memory://` is no faster:
 * its in-memory file system grows files by copying them.
 */
export async function startBenchControlPlane(
  dir: string,
  databaseUrl?: string,
  options: { readIndex?: boolean; userTokenHash?: string } = {},
): Promise<BenchControlPlane> {
  const token = randomBytes(24).toString('hex');
  const logger = pino({ level: 'warn' }, pino.destination({ dest: join(dir, 'cloudctl.log'), sync: false }));
  const config = parseConfig(
    {
      grpc: { host: '127.0.0.1', port: 0 },
      http: { host: '127.0.0.1', port: 0 },
      agents: [{ id: AGENT_ID, tokenHash: hashToken(token) }],
      users: options.userTokenHash === undefined ? [] : [{ name: 'bench', tokenHash: options.userTokenHash }],
      database:
        databaseUrl === undefined ? { dataDir: join(dir, `cloudctl-data-${++runs}`) } : { url: databaseUrl },
    },
    'bench',
    dir,
  );
  const plane = await startControlPlane(config, {
    logger,
    readIndex: options.readIndex ?? true,
    secretEngines: secretEngines(config.secrets, { configDir: dir, env: process.env }),
  });
  return { plane, token, grpcPort: plane.port, close: () => plane.close() };
}

export interface AgentProcessOptions {
  dir: string;
  controlPlane: CloudctlEndpoint;
  kubeconfigPath: string;
  /** Singular kind names, as the config takes them. */
  kinds: readonly string[];
  /** Extra lines for the `orchestrator:` section, indented by two spaces. */
  orchestratorExtra?: readonly string[];
  /** Account names, each on the same kubeconfig and kinds (default: one, `ACCOUNT`). */
  accounts?: readonly string[];
  /** An account's `namespaces` (default: none, every namespace). */
  namespacesOf?: (account: string) => readonly string[];
  /** The agent's id at cloudctl (default `AGENT_ID`). */
  agentId?: string;
  /** Names its config and log files, `<name>.yaml` and `<name>.log` (default `agent`): one per agent. */
  name?: string;
}

export interface AgentProcess {
  readonly process: ChildProcess;
  readonly pid: number;
  readonly metricsUrl: string;
  readonly pprofUrl: string;
  readonly healthUrl: string;
  readonly logFile: string;
  /** A Prometheus gauge or counter without labels, read from /metrics. */
  metric(name: string): Promise<number>;
  stop(): Promise<void>;
}

export async function startAgentProcess(options: AgentProcessOptions): Promise<AgentProcess> {
  const { dir, controlPlane } = options;
  const [healthPort, metricsPort, pprofPort] = [await freePort(), await freePort(), await freePort()];
  const name = options.name ?? 'agent';
  const configFile = join(dir, `${name}.yaml`);
  writeFileSync(
    configFile,
    [
      'variant: B',
      `cloudctl:\n  grpc: 127.0.0.1:${controlPlane.grpcPort}\n  insecure: true\n  auth:\n    token: encrypted:env!n:ORCH_AGENT_TOKEN`,
      'orchestrator:',
      ...(options.orchestratorExtra ?? []).map((line) => `  ${line}`),
      '  accounts:',
      ...(options.accounts ?? [ACCOUNT]).flatMap((name) => [
        `    - name: ${name}`,
        `      orchConfigFile: ${options.kubeconfigPath}`,
        `      kinds: [${options.kinds.join(', ')}]`,
        ...(options.namespacesOf === undefined
          ? []
          : [`      namespaces: [${options.namespacesOf(name).join(', ')}]`]),
      ]),
      `server:\n  host: 127.0.0.1\n  port: ${healthPort}`,
      `telemetry:\n  enabled: true\n  port: ${metricsPort}`,
      `pprof:\n  enabled: true\n  port: ${pprofPort}`,
      'logging:\n  format: json\n  level: info',
      '',
    ].join('\n'),
  );
  const logFile = join(dir, `${name}.log`);
  // As the image runs it (its ENTRYPOINT's Node flags, its environment).
  const run = programCommand('orch-agent', ['run', '--config', configFile], {
    ORCH_AGENT_TOKEN: controlPlane.token,
    ORCH_AGENT_ID: options.agentId ?? AGENT_ID,
  });
  const child = spawn(run.command, run.args, { env: run.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(logFile);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  if (child.pid === undefined) throw new Error('the agent did not start');
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  return {
    process: child,
    pid: child.pid,
    metricsUrl,
    pprofUrl: `http://127.0.0.1:${pprofPort}/debug/pprof`,
    healthUrl: `http://127.0.0.1:${healthPort}`,
    logFile,
    async metric(name) {
      const text = await (await fetch(metricsUrl)).text();
      const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
      if (match?.[1] === undefined) throw new Error(`${metricsUrl} has no ${name}`);
      return Number(match[1]);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Polls `probe` every `everyMs` until it returns a value; throws naming `what` after `limitMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  limitMs: number,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${limitMs / 1000} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** `promise`, or an error naming `what` after `limitMs`: a peer that cannot sync must not hang a run. */
export async function within<T>(promise: Promise<T>, limitMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out after ${limitMs / 1000} s waiting for ${what}`)),
      limitMs,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
