// `serve --config FILE`: load the config and check the files it names, start the control plane, run
// until a stop signal.
import pino from 'pino';
import { formatIssue } from '../../lib/config-issue.ts';
import { checkReferencedFiles, loadConfig } from '../config/index.ts';
import { startControlPlane } from '../control-plane.ts';
import { CloudctlError } from '../errors.ts';
import { type CliIo, EXIT } from './cli-io.ts';

export async function serveCommand(file: string, io: CliIo): Promise<number> {
  // Listen for stop signals before anything starts, so a signal during start-up is not lost.
  const stop = io.stopSignal();
  const loaded = await loadConfig(file);
  const issues = loaded.ok ? await checkReferencedFiles(loaded) : loaded.issues;
  for (const issue of issues) io.err(formatIssue(issue));
  if (!loaded.ok || issues.length > 0) return EXIT.invalidConfig;
  const logger = pino({ level: loaded.config.logging.level, base: { service: 'cloudctl' } }, io.stdout);
  let plane: Awaited<ReturnType<typeof startControlPlane>>;
  try {
    plane = await startControlPlane(loaded.config, { logger });
  } catch (error) {
    if (!(error instanceof CloudctlError)) throw error;
    // A port or database that cannot be used is a setting to change: reported like a config error.
    io.err(`cloudctl: ${error.message}`);
    return EXIT.invalidConfig;
  }
  const signal = await stop;
  logger.info({ signal }, 'cloudctl stopping');
  await plane.close();
  logger.flush();
  return EXIT.ok;
}
