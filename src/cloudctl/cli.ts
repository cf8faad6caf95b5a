// Entry point of the `cloudctl` binary: real process I/O around runCli.
import { text } from 'node:stream/consumers';
import pino from 'pino';
import { processStopSignal } from '../lib/stop-signal.ts';
import { runCli } from './cli/run-cli.ts';

const { stopSignal, release } = processStopSignal();
process.exitCode = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  stdout: pino.destination({ dest: 1, sync: false }),
  env: process.env,
  stopSignal,
  stdoutIsTerminal: process.stdout.isTTY === true,
  readStdin: () => text(process.stdin),
});
// A failed start returns without a signal: nothing is left to wait for.
release();
