// `config validate` and `config print`.
import type { CliIo } from '../../lib/cli-io.ts';
import { EXIT } from '../../lib/command-line.ts';
import { formatIssue, loadConfig, printEffectiveConfig } from '../config/index.ts';

export async function validateCommand(file: string, io: CliIo): Promise<number> {
  const loaded = await loadConfig(file, { fetchSecrets: false, env: io.env });
  for (const issue of loaded.issues) if (issue.severity !== 'debug') io.err(formatIssue(issue));
  if (!loaded.ok) {
    const errors = loaded.issues.filter((i) => i.severity === 'error').length;
    io.err(`${file}: invalid, ${errors} error${errors === 1 ? '' : 's'}`);
    return EXIT.invalidConfig;
  }
  const accounts = loaded.config.orchestrator.accounts.length;
  io.out(
    `${file}: valid (variant ${loaded.config.variant}, ${accounts} account${accounts === 1 ? '' : 's'})`,
  );
  await loaded.dispose();
  return EXIT.ok;
}

export async function printCommand(file: string, io: CliIo): Promise<number> {
  const loaded = await loadConfig(file, { fetchSecrets: false, env: io.env });
  if (!loaded.ok) {
    for (const issue of loaded.issues) if (issue.severity !== 'debug') io.err(formatIssue(issue));
    return EXIT.invalidConfig;
  }
  for (const issue of loaded.issues) if (issue.severity === 'warning') io.err(formatIssue(issue));
  io.out(printEffectiveConfig(loaded).trimEnd());
  await loaded.dispose();
  return EXIT.ok;
}
