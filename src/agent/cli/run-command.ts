// `run --config FILE`: load the config with secrets, check the files it names, then hand over to the
// agent's main loop until a stop signal.
import type { CliIo } from '../../lib/cli-io.ts';
import { EXIT } from '../../lib/command-line.ts';
import { checkReferencedFiles, formatIssue, loadConfig } from '../config/index.ts';
import { ConnectionError } from '../connection/index.ts';
import { runAgent } from '../main.ts';
import { SideServerError } from '../observability/index.ts';

export async function runCommand(file: string, io: CliIo): Promise<number> {
  // Listen for stop signals before anything starts, so a signal during start-up is not lost.
  const stop = io.stopSignal();
  const loaded = await loadConfig(file, { fetchSecrets: true, env: io.env });
  const issues = loaded.ok ? [...loaded.issues, ...(await checkReferencedFiles(loaded))] : loaded.issues;
  for (const issue of issues) if (issue.severity !== 'debug') io.err(formatIssue(issue));
  if (!loaded.ok || issues.some((i) => i.severity === 'error')) {
    if (loaded.ok) await loaded.dispose();
    return EXIT.invalidConfig;
  }
  try {
    await runAgent(loaded, io, stop);
  } catch (error) {
    const setting =
      error instanceof SideServerError ||
      (error instanceof ConnectionError && error.code === 'CLOUDCTL_PROXY');
    if (!setting) throw error;
    // A listener that cannot bind, or a proxy variable that is no URL, is a setting to change:
    // reported like a config error, not as a crash with a stack.
    io.err(`orch-agent: ${error.message}`);
    return EXIT.invalidConfig;
  } finally {
    await loaded.dispose();
  }
  return EXIT.ok;
}
