// The cloudctl binary run to its end as a person runs it, with only the environment given (plus PATH
// and a home of the test's): no token or server leaks in from the runner, and the contexts file is the
// test's. Standard input holds `input` (nothing otherwise), so a command that reads it does not wait.
import { execFile } from 'node:child_process';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '../../bin/cloudctl.js');

export interface CloudctlRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CloudctlRunOptions {
  /** HOME; the contexts file is under `<home>/config`. */
  home: string;
  env?: Record<string, string>;
  input?: string;
}

export function runCloudctl(args: string[], options: CloudctlRunOptions): Promise<CloudctlRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: options.home,
          XDG_CONFIG_HOME: join(options.home, 'config'),
          ...options.env,
        },
      },
      (error, stdout, stderr) =>
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1,
          stdout,
          stderr,
        }),
    );
    child.stdin?.end(options.input ?? '');
  });
}
