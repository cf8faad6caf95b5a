// `serve --config FILE`: load the config, resolve its secret references and check the files it names,
// start the control plane, run until a stop signal. A reference that cannot be resolved stops the
// start like any config error: at its line, naming the engine and the reference, never a value.
import pino from 'pino';
import type { CliIo } from '../../lib/cli-io.ts';
import { EXIT } from '../../lib/command-line.ts';
import { formatIssue } from '../../lib/config-issue.ts';
import { checkReferencedFiles, loadConfig, type ResolvedConfig, resolveConfig } from '../config/index.ts';
import { startControlPlane } from '../control-plane.ts';
import { CloudctlError } from '../errors.ts';
import { type ConfigAccounts, configAccounts } from './config-accounts.ts';

/** The config ready to start with, or false once its problems are written to stderr. */
async function startableConfig(
  file: string,
  io: CliIo,
): Promise<{ resolved: ResolvedConfig; accounts: ConfigAccounts } | false> {
  const loaded = await loadConfig(file, { env: io.env });
  const accounts = loaded.ok ? configAccounts(loaded) : undefined;
  if (!loaded.ok || accounts?.ok === false) {
    for (const issue of loaded.ok ? (accounts?.ok === false ? accounts.issues : []) : loaded.issues)
      io.err(formatIssue(issue));
    return false;
  }
  const resolved = await resolveConfig(loaded);
  const issues = resolved.ok ? await checkReferencedFiles(resolved) : resolved.issues;
  for (const issue of issues) io.err(formatIssue(issue));
  if (!resolved.ok) return false;
  if (issues.length === 0 && accounts?.ok === true) return { resolved, accounts: accounts.accounts };
  await resolved.dispose();
  return false;
}

export async function serveCommand(file: string, io: CliIo): Promise<number> {
  // Listen for stop signals before anything starts, so a signal during start-up is not lost.
  const stop = io.stopSignal();
  const startable = await startableConfig(file, io);
  if (startable === false) return EXIT.invalidConfig;
  const { resolved, accounts } = startable;
  const { config, secretEngines } = resolved;
  const logger = pino({ level: config.logging.level, base: { service: 'cloudctl' } }, io.stdout);
  let plane: Awaited<ReturnType<typeof startControlPlane>>;
  try {
    plane = await startControlPlane(config, { logger, secretEngines, configAccounts: accounts });
  } catch (error) {
    await resolved.dispose();
    if (!(error instanceof CloudctlError)) throw error;
    // A port or database that cannot be used is a setting to change: reported like a config error.
    io.err(`cloudctl: ${error.message}`);
    return EXIT.invalidConfig;
  }
  const signal = await stop;
  logger.info({ signal }, 'cloudctl stopping');
  await plane.close();
  await resolved.dispose();
  logger.flush();
  return EXIT.ok;
}
