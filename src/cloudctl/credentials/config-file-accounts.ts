// Accounts declared in cloudctl's config file (`accounts:`): each entry is a credentials definition,
// exactly what `POST /credentials` takes (so credentials are secret references only: the agent holding
// the account resolves them), checked when the file is validated and synced into the credentials
// store at start. The store marks them with the file: over the API they are read-only (409 naming the
// file). A start with an account gone from the file deletes it, one whose entry changed updates it,
// each as a revision in its history. A definition made over the API under a name the file now
// declares is replaced by the file's: the file is what the operator keeps. An agent's own account of
// the same name still wins, as for every cloudctl account (account source rule 2).
import type { KeyPath } from '../../lib/yaml-source.ts';
import type { CredentialStore } from './credential-store.ts';
import {
  type CredentialsDefinition,
  credentialsDefinitionSchema,
  ORCHESTRATOR,
  permissionsOf,
} from './credentials-definition.ts';

export interface AccountProblem {
  path: KeyPath;
  message: string;
}

/** The file's `accounts` entries as definitions, or every problem with them at its key path. */
export function checkConfigAccounts(
  entries: ReadonlyArray<unknown>,
): { ok: true; definitions: CredentialsDefinition[] } | { ok: false; problems: AccountProblem[] } {
  const problems: AccountProblem[] = [];
  const definitions: CredentialsDefinition[] = [];
  const seen = new Map<string, number>();
  for (const [index, entry] of entries.entries()) {
    const parsed = credentialsDefinitionSchema.safeParse(entry);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        problems.push({
          path: ['accounts', index, ...issue.path.filter((p) => typeof p !== 'symbol')],
          message: issue.message,
        });
      continue;
    }
    const first = seen.get(parsed.data.name);
    if (first !== undefined)
      problems.push({
        path: ['accounts', index, 'name'],
        message: `duplicate account name '${parsed.data.name}' (first used by accounts[${first}])`,
      });
    seen.set(parsed.data.name, index);
    definitions.push(parsed.data);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, definitions };
}

/** JSON with keys in order: the database's jsonb does not keep the order they were written in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export type AccountChange = 'created' | 'updated' | 'deleted';

/**
 * Makes the store hold exactly the file's accounts as declared in `file`; returns what changed, for
 * placement to follow. Idempotent: a start with the same file writes nothing.
 */
export async function syncConfigAccounts(
  store: CredentialStore,
  file: string,
  definitions: ReadonlyArray<CredentialsDefinition>,
  now: Date,
): Promise<Array<{ name: string; change: AccountChange }>> {
  const changes: Array<{ name: string; change: AccountChange }> = [];
  const declared = new Set(definitions.map((d) => d.name));
  for (const stored of await store.declaredInFiles())
    if (!declared.has(stored.name) && (await store.delete(stored.name, now)) !== 'missing')
      changes.push({ name: stored.name, change: 'deleted' });
  for (const definition of definitions) {
    const write = {
      name: definition.name,
      type: ORCHESTRATOR,
      definition: { ...definition },
      permissions: permissionsOf(definition),
    };
    const stored = await store.get(definition.name);
    if (stored === undefined) {
      // Another replica reading the same file may have created it meanwhile: then it is an update.
      const created = await store.create(write, now);
      if (created === 'exists') await store.update(write, now);
      changes.push({ name: definition.name, change: 'created' });
    } else if (canonical(stored.definition) !== canonical(write.definition)) {
      await store.update(write, now);
      changes.push({ name: definition.name, change: 'updated' });
    }
    if (stored?.configFile !== file) await store.setConfigFile(definition.name, file);
  }
  return changes;
}
