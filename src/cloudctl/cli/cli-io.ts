// What cloudctl's CLI needs from the outside world, passed in so tests can drive it in-process.
import type { DestinationStream } from 'pino';

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Standard output as a log destination. */
  stdout: DestinationStream;
  /** The environment: the `env` and `k8s` secret engines' (serve), CLOUDCTL_URL and CLOUDCTL_TOKEN (deploy). */
  env: NodeJS.ProcessEnv;
  /** Starts listening for stop signals; resolves with the signal name when one arrives. */
  stopSignal: () => Promise<string>;
}

export { EXIT } from '../../lib/command-line.ts';
