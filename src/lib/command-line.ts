// The command-line conventions both binaries share: `--config FILE`, `--help`, `--version`; a usage
// error is reported with a pointer to --help and exit status 2.
import { parseArgs } from 'node:util';

export class UsageError extends Error {}

export const USAGE_EXIT = 2;

export function parseCommandLine(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        config: { type: 'string', short: 'c' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** Runs a command, turning a UsageError into its message and exit status 2. */
export async function withUsageErrors(
  program: string,
  err: (text: string) => void,
  run: () => Promise<number>,
): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(`${program}: ${error.message}\nRun '${program} --help' for usage.`);
    return USAGE_EXIT;
  }
}
