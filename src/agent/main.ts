// The agent daemon: wires the loaded config to its parts and runs until asked to stop. Each later
// part (connection, accounts, watches, operations, side servers) is started here and stopped in
// reverse order.

import pkg from '../../package.json' with { type: 'json' };
import type { CliIo } from './cli/cli-io.ts';
import type { LoadedConfig } from './config/index.ts';
import { defaultContextSources } from './observability/agent-context.ts';
import { createLogger } from './observability/logger.ts';

export async function runAgent(loaded: LoadedConfig, io: CliIo, stop: Promise<string>): Promise<void> {
  const { config } = loaded;
  const logging = await createLogger(config, {
    stdout: io.stdout,
    context: defaultContextSources(io.env),
    onInternalError: (error) => io.err(`orch-agent: logging failed: ${error.message}`),
    now: Date.now,
  });
  const log = logging.logger;
  for (const issue of loaded.issues) {
    const entry = { file: issue.file, line: issue.line, column: issue.column, key: issue.path };
    if (issue.severity === 'warning') log.warn(entry, issue.message);
    else log.debug(entry, issue.message);
  }
  log.info(
    {
      version: pkg.version,
      variant: config.variant,
      accounts: config.orchestrator.accounts.map((a) => a.name),
    },
    'orch-agent started',
  );
  const signal = await stop;
  log.info({ signal }, 'orch-agent stopping');
  await logging.close();
}
