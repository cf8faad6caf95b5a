// `config validate FILE` and `config print FILE`.
import type { CliIo } from '../../lib/cli-io.ts';
import { EXIT } from '../../lib/command-line.ts';
import { formatIssue } from '../../lib/config-issue.ts';
import { loadConfig, printEffectiveConfig } from '../config/index.ts';
import { configAccounts } from './config-accounts.ts';

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

export async function validateCommand(file: string, io: CliIo): Promise<number> {
  const loaded = await loadConfig(file, { env: io.env });
  const accounts = loaded.ok ? configAccounts(loaded) : undefined;
  const issues = !loaded.ok ? loaded.issues : accounts?.ok === false ? accounts.issues : [];
  if (!loaded.ok || issues.length > 0) {
    for (const issue of issues) io.err(formatIssue(issue));
    io.err(`${file}: invalid, ${plural(issues.length, 'error')}`);
    return EXIT.invalidConfig;
  }
  const { agents, users, database } = loaded.config;
  const store =
    database.url === undefined && database.urlFile === undefined ? 'embedded database' : 'PostgreSQL';
  io.out(`${file}: valid (${plural(agents.length, 'agent')}, ${plural(users.length, 'user')}, ${store})`);
  return EXIT.ok;
}

export async function printCommand(file: string, io: CliIo): Promise<number> {
  const loaded = await loadConfig(file, { env: io.env });
  const accounts = loaded.ok ? configAccounts(loaded) : undefined;
  if (!loaded.ok || accounts?.ok === false) {
    for (const issue of loaded.ok ? (accounts?.ok === false ? accounts.issues : []) : loaded.issues)
      io.err(formatIssue(issue));
    return EXIT.invalidConfig;
  }
  io.out(printEffectiveConfig(loaded.config).trimEnd());
  return EXIT.ok;
}
