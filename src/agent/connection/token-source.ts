// The bearer token sent with every call: `cloudctl.auth.token`, or the output of
// `cloudctl.auth.tokenCommand`, run once or every `refreshIntervalSeconds`. A refreshed token is used
// from the next call on. A failing command is logged (never its output: it may hold the token) and
// run again with backoff; the previous token stays in use meanwhile.

import { execFile } from 'node:child_process';
import { Backoff } from '../../lib/backoff.ts';
import type { Log } from '../../lib/log.ts';
import { causeOf } from '../../lib/log-cause.ts';
import { ConnectionError } from './connection-error.ts';
import type { CloudctlSettings } from './credentials.ts';

type AuthSettings = CloudctlSettings['auth'];
type TokenCommand = NonNullable<AuthSettings['tokenCommand']>;

/** A token command that does not finish in this time has failed. */
const COMMAND_TIMEOUT_MS = 30_000;
const RETRY_INITIAL_MS = 1000;
const RETRY_MAX_MS = 60_000;

export type CommandRunner = (command: string, args: string[]) => Promise<string>;

const runCommand: CommandRunner = (command, args) =>
  new Promise((resolve, reject) => {
    execFile(command, args, { timeout: COMMAND_TIMEOUT_MS, maxBuffer: 1 << 20 }, (error, stdout) => {
      if (error === null) {
        resolve(stdout);
        return;
      }
      // The message of an exec error repeats the command line, never its output.
      const exit = typeof error.code === 'number' ? `exit code ${error.code}` : (error.code ?? error.message);
      reject(new ConnectionError('CLOUDCTL_TOKEN_COMMAND', `cloudctl.auth.tokenCommand ${command}: ${exit}`));
    });
  });

export function parseTokenOutput(output: string, format: TokenCommand['format']): string {
  if (format === 'raw') {
    const token = output.trim();
    if (token === '')
      throw new ConnectionError('CLOUDCTL_TOKEN_COMMAND', 'cloudctl.auth.tokenCommand printed nothing');
    return token;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    throw new ConnectionError(
      'CLOUDCTL_TOKEN_COMMAND',
      'cloudctl.auth.tokenCommand printed no JSON object (format is json; set format: raw for a bare token)',
    );
  }
  const token = typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, 'token') : undefined;
  if (typeof token !== 'string' || token === '') {
    throw new ConnectionError(
      'CLOUDCTL_TOKEN_COMMAND',
      'cloudctl.auth.tokenCommand printed JSON without a non-empty string attribute "token"',
    );
  }
  return token;
}

export interface TokenSourceDeps {
  logger: Log;
  run?: CommandRunner;
}

export class TokenSource {
  readonly #auth: AuthSettings;
  readonly #logger: Log;
  readonly #run: CommandRunner;
  readonly #retry: Backoff;
  #current: string | undefined;
  #pending: Promise<string> | undefined;
  #refreshTimer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(auth: AuthSettings, deps: TokenSourceDeps) {
    this.#auth = auth;
    this.#logger = deps.logger;
    this.#run = deps.run ?? runCommand;
    const refreshMs = (auth.tokenCommand?.refreshIntervalSeconds ?? 0) * 1000;
    this.#retry = new Backoff(() => void this.#refresh(), {
      initialDelayMs: RETRY_INITIAL_MS,
      multiplier: 2,
      jitter: 0.2,
      maxDelayMs: refreshMs > 0 ? Math.min(refreshMs, RETRY_MAX_MS) : RETRY_MAX_MS,
    });
  }

  /** The token for the next call (undefined: none configured). Runs the command if it has not succeeded yet. */
  async token(): Promise<string | undefined> {
    if (this.#auth.token !== undefined) return this.#auth.token;
    if (this.#auth.tokenCommand === undefined) return undefined;
    if (this.#current !== undefined) return this.#current;
    return this.#obtain();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#refreshTimer);
    this.#retry.stop();
  }

  #obtain(): Promise<string> {
    const command = this.#auth.tokenCommand;
    if (command === undefined) return Promise.reject(new Error('no token command'));
    this.#pending ??= this.#run(command.command, command.args)
      .then((output) => parseTokenOutput(output, command.format))
      .then((token) => {
        this.#current = token;
        this.#retry.reset();
        this.#scheduleRefresh(command.refreshIntervalSeconds * 1000);
        return token;
      })
      .finally(() => {
        this.#pending = undefined;
      });
    return this.#pending;
  }

  #scheduleRefresh(ms: number): void {
    clearTimeout(this.#refreshTimer);
    if (ms <= 0 || this.#stopped) return;
    this.#refreshTimer = setTimeout(() => void this.#refresh(), ms);
    this.#refreshTimer.unref();
  }

  async #refresh(): Promise<void> {
    if (this.#stopped) return;
    try {
      await this.#obtain();
      this.#logger.debug('cloudctl.auth.tokenCommand refreshed the token');
    } catch (error) {
      if (this.#stopped) return;
      const delay = this.#retry.runOnce();
      this.#logger.error(
        { cause: causeOf(error), retryInMs: Math.round(delay) },
        'cloudctl.auth.tokenCommand failed; the previous token stays in use until it succeeds',
      );
    }
  }
}
