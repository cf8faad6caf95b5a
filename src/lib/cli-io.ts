// What both programs' command lines need from the outside world, passed in so tests can drive them
// in-process.
import type { DestinationStream } from 'pino';

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** The environment: what config files reference, the `env` and `k8s` secret engines', and cloudctl
   * deploy's CLOUDCTL_URL and CLOUDCTL_TOKEN. */
  env: NodeJS.ProcessEnv;
  /** Standard output as a log destination, for the daemons (`orch-agent run`, `cloudctl serve`). */
  stdout: DestinationStream;
  /** Starts listening for stop signals; resolves with the signal name when one arrives. */
  stopSignal: () => Promise<string>;
  /** Whether standard output is a terminal (cloudctl colours a plan's diff only there); absent: not. */
  stdoutIsTerminal?: boolean;
  /** Standard input, read to its end (`cloudctl plan -f -`); absent: there is none to read. */
  readStdin?: () => Promise<string>;
}
