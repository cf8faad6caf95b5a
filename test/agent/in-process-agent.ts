// The agent daemon (`runAgent`) started in the test process, with its JSON log lines captured and a
// stop that delivers a signal: what every test of a whole agent shares.
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatIssue, loadConfig } from '../../src/agent/config/index.ts';
import { type AgentRuntime, runAgent } from '../../src/agent/main.ts';
import type { CliIo } from '../../src/lib/cli-io.ts';
import { writeConfig } from './config/config-fixture.ts';

export interface LogEntry {
  msg: string;
  component?: string;
  [field: string]: unknown;
}

export interface InProcessAgent {
  runtime: AgentRuntime;
  /** Every log line so far, parsed. */
  logs: LogEntry[];
  /** Delivers `signal` to the agent; settles, like `done`, when it has shut down. */
  stop(signal?: string): Promise<void>;
  done: Promise<void>;
}

function isLogEntry(value: unknown): value is LogEntry {
  return typeof value === 'object' && value !== null && 'msg' in value && typeof value.msg === 'string';
}

export interface InProcessAgentOptions {
  /** The agent's environment; ORCH_AGENT_ID is `agent-1` (the test control plane's agent) unless set. */
  env?: NodeJS.ProcessEnv;
  shutdownDeadlineMs?: number;
  serviceAccountRoot?: string;
  accountRetryMs?: number;
}

/**
 * Starts the agent from a config (YAML text, or an object, which is written as JSON: JSON is YAML);
 * logging defaults to JSON so the lines can be read. Resolves once the agent has started.
 */
export async function startInProcessAgent(
  config: string | Record<string, unknown>,
  options: InProcessAgentOptions = {},
): Promise<InProcessAgent> {
  const text =
    typeof config === 'string'
      ? /^logging:/m.test(config)
        ? config
        : `logging:\n  format: json\n${config}`
      : JSON.stringify({ logging: { format: 'json' }, ...config }, null, 2);
  const loaded = await loadConfig(writeConfig(text), { fetchSecrets: true, env: options.env ?? {} });
  if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
  const logs: LogEntry[] = [];
  const stdout = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        const parsed: unknown = JSON.parse(line);
        if (isLogEntry(parsed)) logs.push(parsed);
      }
      done();
    },
  });
  const { promise: stopped, resolve: signal } = Promise.withResolvers<string>();
  const { promise: started, resolve: onStarted } = Promise.withResolvers<AgentRuntime>();
  const io: CliIo = {
    out: () => undefined,
    err: () => undefined,
    env: { ORCH_AGENT_ID: 'agent-1', ...options.env },
    stdout,
    stopSignal: () => stopped,
  };
  const { env: _env, ...runOptions } = options;
  // As `run` does: the files written for secret references are removed when the agent stops.
  const done = runAgent(loaded, io, stopped, { ...runOptions, onStarted }).finally(() => loaded.dispose());
  const runtime = await Promise.race([
    started,
    done.then(() => {
      throw new Error('the agent stopped before it started');
    }),
  ]);
  return {
    runtime,
    logs,
    stop: (name = 'SIGTERM') => {
      signal(name);
      return done;
    },
    done,
  };
}

/** Status of GET `url` (any answer, no retries). */
export async function statusOf(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
}

/**
 * Milliseconds from now until `probe` holds, polling every `everyMs`; throws with `what` after
 * `limitMs`.
 */
export async function msUntil(
  probe: () => Promise<boolean> | boolean,
  limitMs: number,
  what: string,
  everyMs = 20,
): Promise<number> {
  const started = performance.now();
  while (!(await probe())) {
    if (performance.now() - started > limitMs) throw new Error(`${what}: not within ${limitMs} ms`);
    await sleep(everyMs);
  }
  return performance.now() - started;
}
