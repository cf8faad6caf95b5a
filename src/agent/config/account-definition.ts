// A dynamic account's definition as the control plane sends it: one `orchestrator.accounts[]` entry
// whose secret references (`encrypted:`, `encryptedFile:`) are still references. They are resolved
// here with the engines the config file was loaded with, then the entry goes through the same schema
// (parse-account.ts). The result can redact: every text the agent sends or shows about the account
// passes through it, so a resolved value (or the private file written for one) reads as its reference.
import { isRecord } from '../../lib/is-record.ts';
import { formatKeyPath, type KeyPath } from '../../lib/yaml-source.ts';
import { resolveSecrets, type SecretEngine } from '../../secrets/index.ts';
import { parseAccount } from './parse-account.ts';
import type { AccountConfig } from './schema/agent-config.ts';
import type { Variant } from './schema/variant.ts';

export interface AccountDefinition {
  account: AccountConfig;
  /** The definition as sent (references, not values): equal texts are the same definition. */
  fingerprint: string;
  /** Replaces each resolved secret value and secret file path in `text` with its reference. */
  redact(text: string): string;
  /** Removes the files written for `encryptedFile:` references. */
  dispose(): Promise<void>;
}

function valueAt(root: unknown, path: KeyPath): unknown {
  let node = root;
  for (const part of path) node = Array.isArray(node) || isRecord(node) ? Reflect.get(node, part) : undefined;
  return node;
}

export async function loadAccountDefinition(
  variant: Variant,
  name: string,
  definition: unknown,
  engines: ReadonlyArray<SecretEngine>,
): Promise<{ ok: true; definition: AccountDefinition } | { ok: false; message: string }> {
  // The assignment's name is the account's name, whatever the entry says.
  const raw = { ...(isRecord(definition) ? definition : {}), name };
  const secrets = await resolveSecrets(raw, engines, { fetch: true });
  const problem = secrets.issues[0];
  if (problem !== undefined) {
    await secrets.dispose();
    // Engine messages name the reference's parameters, never the value.
    return { ok: false, message: `${formatKeyPath(problem.path)}: ${problem.message}` };
  }
  // Longest first, so a value that contains another is replaced whole.
  const replacements = secrets.references
    .map(({ path, reference }) => ({ value: valueAt(secrets.value, path), reference }))
    .filter((r): r is { value: string; reference: string } => typeof r.value === 'string' && r.value !== '')
    .sort((a, b) => b.value.length - a.value.length);
  const redact = (text: string) =>
    replacements.reduce((out, { value, reference }) => out.replaceAll(value, reference), text);
  const parsed = parseAccount(variant, secrets.value);
  if (!parsed.ok) {
    await secrets.dispose();
    return { ok: false, message: redact(parsed.message) };
  }
  return {
    ok: true,
    definition: {
      account: parsed.account,
      fingerprint: JSON.stringify(raw),
      redact,
      dispose: secrets.dispose,
    },
  };
}
