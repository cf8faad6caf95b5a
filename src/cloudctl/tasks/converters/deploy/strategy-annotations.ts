// The `strategy.spinnaker.io/*` annotations a manifest may carry (clouddriver's
// KubernetesManifestStrategy), checked before anything is sent: an unknown one, a bad value, or two
// write strategies at once is a 400 naming the annotation. The agent carries out `recreate`,
// `replace` and `server-side-apply`; cloudctl `versioned`, `max-version-history` and
// `use-source-capacity`.
import { PayloadError } from '../converter.ts';
import { MAX_VERSION_HISTORY_ANNOTATION, VERSIONED_ANNOTATION } from './resource-versioner.ts';

const PREFIX = 'strategy.spinnaker.io/';
export const USE_SOURCE_CAPACITY_ANNOTATION = `${PREFIX}use-source-capacity`;
const RECREATE = `${PREFIX}recreate`;
const REPLACE = `${PREFIX}replace`;
const SERVER_SIDE_APPLY = `${PREFIX}server-side-apply`;

const BOOLEAN = ['true', 'false'];
const VALUES: Record<string, readonly string[] | 'count'> = {
  [VERSIONED_ANNOTATION]: BOOLEAN,
  [MAX_VERSION_HISTORY_ANNOTATION]: 'count',
  [USE_SOURCE_CAPACITY_ANNOTATION]: BOOLEAN,
  [RECREATE]: BOOLEAN,
  [REPLACE]: BOOLEAN,
  [SERVER_SIDE_APPLY]: ['true', 'false', 'force-conflicts'],
};

export function checkStrategyAnnotations(annotations: Record<string, string>, path: string): void {
  for (const [key, raw] of Object.entries(annotations)) {
    if (!key.startsWith(PREFIX)) continue;
    const allowed = VALUES[key];
    const where = `${path}.${key}`;
    if (allowed === undefined) {
      throw new PayloadError(where, `unknown strategy annotation; known: ${Object.keys(VALUES).join(', ')}`);
    }
    const value = raw.trim().toLowerCase();
    const ok = allowed === 'count' ? /^\d+$/.test(value) : allowed.includes(value);
    if (!ok) {
      const expected = allowed === 'count' ? 'a whole number' : allowed.map((v) => `'${v}'`).join(' or ');
      throw new PayloadError(where, `expected ${expected}, found '${raw}'`);
    }
  }
  if (annotations[RECREATE]?.trim() === 'true' && annotations[REPLACE]?.trim() === 'true') {
    throw new PayloadError(
      `${path}.${REPLACE}`,
      `cannot be used with ${RECREATE}: choose one write strategy`,
    );
  }
}

export function usesReplace(annotations: Record<string, string>): boolean {
  return annotations[REPLACE]?.trim().toLowerCase() === 'true';
}

export function usesSourceCapacity(annotations: Record<string, string>): boolean {
  return annotations[USE_SOURCE_CAPACITY_ANNOTATION]?.trim().toLowerCase() === 'true';
}
