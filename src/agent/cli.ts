// Entry point of the `orch-agent` binary: real process I/O around runCli.
import { once } from 'node:events';
import pino from 'pino';
import { runCli } from './cli/run-cli.ts';

const stopSignal = async () => {
  const [signal] = await Promise.race([
    once(process, 'SIGTERM').then(() => ['SIGTERM']),
    once(process, 'SIGINT').then(() => ['SIGINT']),
  ]);
  return signal ?? 'SIGTERM';
};

process.exitCode = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
  stdout: pino.destination({ dest: 1, sync: false }),
  stopSignal,
});
