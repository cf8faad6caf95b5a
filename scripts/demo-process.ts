// One process of `npm run demo` (cloudctl, the agent) with its output in a log file. When it ends
// on its own, the demo shows the end of that log and keeps the file: a first run that fails must say
// why on the screen, not point at a log the shutdown then deletes.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';

/** How much of a dead process's log the demo prints: enough for a stack trace and what led to it. */
export const LOG_TAIL_LINES = 40;

export interface DemoProcessEnd {
  /** `code 1` or `signal SIGKILL`. */
  how: string;
  /** The last LOG_TAIL_LINES lines of its log, complete: read after its output has been written. */
  tail: string[];
}

export interface DemoProcess {
  readonly log: string;
  /** Stops it (SIGTERM) and waits for its exit; when it had ended on its own, waits for `onEnded`. */
  stop(): Promise<void>;
}

/** The last `count` non-empty lines of `text`. */
export function lastLines(text: string, count: number): string[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-count);
}

/**
 * Starts `command args` with stdout and stderr written to `log`. `onEnded` is called when it exits
 * before `stop()` asked it to, once its log is complete.
 */
export function startDemoProcess(options: {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  log: string;
  onEnded: (end: DemoProcessEnd) => void;
}): DemoProcess {
  const { log } = options;
  const child = spawn(options.command, options.args, { env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logStream = createWriteStream(log);
  // Two sources into one file: neither may end it (stdout often closes before stderr's last line,
  // the stack trace of a crash); it ends once the process and both pipes have closed.
  child.stdout.pipe(logStream, { end: false });
  child.stderr.pipe(logStream, { end: false });
  let stopping = false;
  let endedOnItsOwn = false;
  child.once('exit', () => {
    endedOnItsOwn = !stopping;
  });
  const closed = once(child, 'close').then(async ([code, signal]: unknown[]) => {
    logStream.end();
    await once(logStream, 'finish');
    return signal === null ? `code ${String(code)}` : `signal ${String(signal)}`;
  });
  const reported = closed.then(async (how) => {
    if (!endedOnItsOwn) return;
    const text = await readFile(log, 'utf8').catch((error: unknown) => `(its log cannot be read: ${error})`);
    options.onEnded({ how, tail: lastLines(text, LOG_TAIL_LINES) });
  });
  return {
    log,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        stopping = true;
        child.kill('SIGTERM');
      }
      await reported;
    },
  };
}
