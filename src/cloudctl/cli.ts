// Entry point of the `cloudctl` binary: real process I/O around runCli.
import pino from 'pino';
import { runCli } from './cli/run-cli.ts';

let stop: Promise<string> | undefined;
let keepAlive: NodeJS.Timeout | undefined;

/** Resolves with the first SIGTERM/SIGINT; a second one gets Node's default action, a forced stop. */
function stopSignal(): Promise<string> {
  stop ??= new Promise((resolve) => {
    // Signal listeners do not keep the event loop alive; this timer does until the signal comes.
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
  stdout: pino.destination({ dest: 1, sync: false }),
  stopSignal,
});
// A failed start returns without a signal: nothing is left to wait for.
clearInterval(keepAlive);
