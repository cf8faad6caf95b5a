// `serve --config FILE`: load the config, start the control plane, run until a stop signal.
import pino from 'pino';
import { loadConfig } from '../config/index.ts';
import { startControlPlane } from '../control-plane.ts';
import { CloudctlError } from '../errors.ts';
import { type CliIo, EXIT } from './cli-io.ts';

export async function serveCommand(file: string, io: CliIo): Promise<number> {
  // Listen for stop signals before anything starts, so a signal during start-up is not lost.
  const stop = io.stopSignal();
  let plane: Awaited<ReturnType<typeof startControlPlane>>;
  const logger = pino({ level: 'info', base: { service: 'cloudctl' } }, io.stdout);
  try {
    const config = await loadConfig(file);
    logger.level = config.logging.level;
    plane = await startControlPlane(config, { logger });
  } catch (error) {
    if (!(error instanceof CloudctlError)) throw error;
    io.err(`cloudctl: ${error.message}`);
    return EXIT.invalidConfig;
  }
  const signal = await stop;
  logger.info({ signal }, 'cloudctl stopping');
  await plane.close();
  logger.flush();
  return EXIT.ok;
}
