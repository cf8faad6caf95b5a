// Runs a program of the test set-up to its end, its output dropped and its error output kept for the
// failure: what the installs in test/tools and test/cluster call (python3 -m venv, pip).
import { spawn } from 'node:child_process';

export function runCommand(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      err += c;
    });
    child.once('error', (e) => reject(new Error(`${command}: ${e.message}`)));
    child.once('close', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${command} ${args.join(' ')} failed (exit ${code}): ${err.trim()}`)),
    );
  });
}
