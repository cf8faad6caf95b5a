// Account definitions that arrive at run time (dynamic accounts from the control plane) go through the
// same schema and rules as the config file's, for the agent's variant.
import { accountSchemaAC, accountSchemaB } from './schema/account.ts';
import type { AccountConfig } from './schema/agent-config.ts';
import type { Variant } from './schema/variant.ts';

export function parseAccount(
  variant: Variant,
  raw: unknown,
): { ok: true; account: AccountConfig } | { ok: false; message: string } {
  const parsed = (variant === 'B' ? accountSchemaB() : accountSchemaAC()).safeParse(raw);
  if (parsed.success) return { ok: true, account: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    ok: false,
    message: `${(issue?.path ?? []).join('.') || 'account'}: ${issue?.message ?? 'invalid'}`,
  };
}
