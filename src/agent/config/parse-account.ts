// Account definitions that arrive at run time (dynamic accounts from the control plane) go through the
// same schema and rules as the config file's, for the agent's variant, empty values included: a
// definition copied from the product we replace reads `insecure: null` as not set, as the file does.
import { accountSchemaAC, accountSchemaB } from '../../contract/index.ts';
import { isRecord } from '../../lib/is-record.ts';
import { indexSchema, type SchemaIndex } from '../../lib/schema-walk.ts';
import { dropEmptyValues } from './empty-values.ts';
import type { AccountConfig } from './schema/agent-config.ts';
import type { Variant } from './schema/variant.ts';

const schemas = { B: accountSchemaB(), AC: accountSchemaAC() };
let indexes: { B: SchemaIndex; AC: SchemaIndex } | undefined;

export function parseAccount(
  variant: Variant,
  raw: unknown,
): { ok: true; account: AccountConfig } | { ok: false; message: string } {
  const which = variant === 'B' ? 'B' : 'AC';
  indexes ??= { B: indexSchema(schemas.B), AC: indexSchema(schemas.AC) };
  const parsed = schemas[which].safeParse(isRecord(raw) ? dropEmptyValues(raw, indexes[which]) : raw);
  if (parsed.success) return { ok: true, account: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    ok: false,
    message: `${(issue?.path ?? []).join('.') || 'account'}: ${issue?.message ?? 'invalid'}`,
  };
}
