// What the CLI needs from the outside world, passed in so tests can drive it in-process.
import type { DestinationStream } from 'pino';

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** Standard output as a log destination, for `run`. */
  stdout: DestinationStream;
  /** Starts listening for stop signals; resolves with the signal name when one arrives. */
  stopSignal: () => Promise<string>;
}

export { EXIT } from '../../lib/command-line.ts';
