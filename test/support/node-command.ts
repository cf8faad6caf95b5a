// How tests, benchmarks and the demo start one of our programs as a process, as users run it: Node
// with the flags of the bin's shebang and the environment the image gives it. Each program's
// settings live beside it (src/agent/agent-runtime.ts, src/cloudctl/cloudctl-runtime.ts), and
// test/packaging holds the shebangs, the image and the charts to them.

/** The command, arguments and environment that run the bin with `args`. */
export interface NodeCommand {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** Runs `bin` with `flags` and the program's `settings`, then the caller's `env` over them. */
export function nodeCommand(
  bin: string,
  program: { flags: readonly string[]; settings: Readonly<Record<string, string>> },
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): NodeCommand {
  return {
    command: process.execPath,
    args: [...program.flags, bin, ...args],
    env: { ...process.env, ...program.settings, ...env },
  };
}
