// Entry point of the `orch-agent` binary: real process I/O around runCli.
import pino from 'pino';
import { runCli } from './cli/run-cli.ts';

let stop: Promise<string> | undefined;
let keepAlive: NodeJS.Timeout | undefined;

/**
 * Registers SIGTERM/SIGINT handlers on first call and resolves with the first signal. Signal
 * listeners do not keep Node's event loop alive, so a timer does until the signal arrives. A second
 * signal gets Node's default action: a forced stop.
 */
function stopSignal(): Promise<string> {
  stop ??= new Promise((resolve) => {
    keepAlive = setInterval(() => undefined, 2 ** 30);
    const onSignal = (signal: NodeJS.Signals) => {
      clearInterval(keepAlive);
      resolve(signal);
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  });
  return stop;
}

process.exitCode = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
  stdout: pino.destination({ dest: 1, sync: false }),
  stopSignal,
});
// `run` may return without a signal (an invalid config): nothing is left to wait for.
clearInterval(keepAlive);
